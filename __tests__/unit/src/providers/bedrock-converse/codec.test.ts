import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { NeutralReply } from '../../../../../src/conversation';
import { bedrockConverse } from '../../../../../src/providers/bedrock-converse';
import {
  decodeEvent,
  decodeMessages,
  EventStreamError,
  encodeMessage,
} from '../../../../../src/providers/bedrock-converse/event-stream';
import { createConversationStore } from '../../../../../src/providers/store';

const dir = join(__dirname, 'golden');
const golden = (name: string) => readFileSync(join(dir, name), 'utf8');
const bytes = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
const json = (name: string) => JSON.parse(golden(name));

const store = createConversationStore();
const STREAM = '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream';
const at = (path = STREAM) => ({ path, query: new URLSearchParams(), store });

const reply: NeutralReply = {
  content: 'Checking both.',
  reasoning: 'Two lookups.',
  toolCalls: [
    { id: 'tooluse_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'tooluse_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 42, outputTokens: 12, totalTokens: 54, cachedInputTokens: 30, reasoningTokens: 0 },
  model: 'm',
};
const ctx = { callIndex: 3, created: 1767225600, shaping: { chunkSize: 8 }, store };

function conversation() {
  const decoded = bedrockConverse.decode(json('request.json'), at());
  if (!decoded.ok) throw new Error(decoded.error.message);
  return decoded.conversation;
}

const concat = (events: Array<string | Uint8Array>) =>
  Buffer.concat(events.map((e) => Buffer.from(e as Uint8Array)));

describe('bedrock.converse codec (golden wire samples)', () => {
  it('decodes a multi-turn request: system blocks, reasoning, parallel toolUse, json/text/error toolResults, an image turn', () => {
    expect(conversation()).toEqual(json('conversation.json'));
  });

  it('takes the model and streaming from the path, URL-decoded', () => {
    const plain = bedrockConverse.decode(
      { messages: [] },
      at('/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.x/converse'),
    );
    expect(plain).toMatchObject({
      ok: true,
      conversation: { model: 'arn:aws:bedrock:us-east-1:1:inference-profile/us.x', stream: false },
    });
    expect(bedrockConverse.handles('POST', '/model/x/converse-stream')).toBe(true);
    expect(bedrockConverse.handles('POST', '/model/x/invoke')).toBe(false);
    expect(bedrockConverse.handles('GET', '/model/x/converse')).toBe(false);
  });

  it('encodes a Converse reply with reasoning, text and parallel toolUse blocks', () => {
    const wire = bedrockConverse.encodeReply(reply, conversation(), ctx);
    expect(wire.headers['content-type']).toBe('application/json');
    expect(JSON.parse(wire.body)).toEqual(json('reply-tool-calls.json'));
  });

  it('encodes the ConverseStream events byte for byte, framed as an AWS event stream', () => {
    const wire = bedrockConverse.encodeStream(reply, conversation(), ctx);
    expect(wire.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    const framed = concat(wire.events);
    expect(framed.equals(Buffer.from(bytes('stream-tool-calls.bin')))).toBe(true);
    const events = decodeMessages(framed).messages.map((m) => ({
      headers: m.headers,
      payload: JSON.parse(Buffer.from(m.payload).toString()),
    }));
    expect(events).toEqual(json('stream-tool-calls.events.json'));
    // Text and reasoning blocks open with their first delta; only toolUse blocks have a start event.
    expect(
      events.filter((e) => e.headers[':event-type'] === 'contentBlockStart').map((e) => e.payload.start),
    ).toEqual([
      { toolUse: { toolUseId: 'tooluse_a', name: 'get_weather' } },
      { toolUse: { toolUseId: 'tooluse_b', name: 'get_time' } },
    ]);
  });

  it('encodes a throttling error with x-amzn-errortype and retry-after', () => {
    expect(
      bedrockConverse.encodeError({
        status: 429,
        type: 'rate_limit_exceeded',
        message: 'Too many requests, please wait before trying again.',
        retryAfter: 3,
      }),
    ).toEqual(json('error-429.json'));
  });

  it('reads its own replies back (recording)', () => {
    const plain = bedrockConverse.reply?.decodeReply(json('reply-tool-calls.json'));
    expect(plain).toMatchObject({
      ok: true,
      complete: true,
      reply: { content: 'Checking both.', toolCalls: reply.toolCalls, finishReason: 'tool_calls' },
    });
    const latin1 = Buffer.from(bytes('stream-tool-calls.bin')).toString('latin1');
    const streamed = bedrockConverse.reply?.decodeStream(latin1);
    expect(streamed).toMatchObject({
      ok: true,
      complete: true,
      reply: { content: 'Checking both.', reasoning: 'Two lookups.', toolCalls: reply.toolCalls },
    });
    expect(streamed?.ok && streamed.reply.usage).toEqual({
      inputTokens: 42,
      outputTokens: 12,
      totalTokens: 54,
      cachedInputTokens: 30,
      reasoningTokens: 0,
    });
  });
});

describe('AWS event-stream framing', () => {
  it('reads a frame captured from Bedrock (its CRCs as AWS computed them) and frames it again byte for byte', () => {
    const captured = bytes('captured-invoke-chunk.bin');
    const { messages, rest } = decodeMessages(captured);
    expect(rest).toHaveLength(0);
    expect(messages).toHaveLength(1);
    expect(messages[0].headers).toEqual({
      ':event-type': 'chunk',
      ':content-type': 'application/json',
      ':message-type': 'event',
    });
    const event = decodeEvent(messages[0]);
    expect(event).toMatchObject({
      messageType: 'event',
      type: 'chunk',
      payload: { p: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJK' },
    });
    const again = encodeMessage(messages[0].headers as Record<string, string>, messages[0].payload);
    expect(Buffer.from(again).equals(Buffer.from(captured))).toBe(true);
  });

  it('keeps a message cut off mid-way for the next read, and refuses a damaged checksum', () => {
    const captured = bytes('captured-invoke-chunk.bin');
    const twice = Buffer.concat([captured, captured.subarray(0, 100)]);
    const { messages, rest } = decodeMessages(new Uint8Array(twice));
    expect(messages).toHaveLength(1);
    expect(rest).toHaveLength(100);
    const damaged = new Uint8Array(captured);
    damaged[40] ^= 1;
    expect(() => decodeMessages(damaged)).toThrow(
      new EventStreamError('the message checksum does not match'),
    );
    const prelude = new Uint8Array(captured);
    prelude[2] ^= 1;
    expect(() => decodeMessages(prelude)).toThrow(EventStreamError);
  });
});
