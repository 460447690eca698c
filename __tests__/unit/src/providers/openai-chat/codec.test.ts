import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { matchKeysOf } from '../../../../../src/conversation';
import { openaiChat } from '../../../../../src/providers/openai-chat';
import { createConversationStore } from '../../../../../src/providers/store';

const store = createConversationStore();
const at = { path: '/chat/completions', query: new URLSearchParams(), store };

const golden = (name: string) => readFileSync(join(__dirname, 'golden', name), 'utf8');
const json = (name: string) => JSON.parse(golden(name));

const reply = {
  content: null,
  toolCalls: [
    { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
  ],
  finishReason: 'tool_calls' as const,
  usage: { inputTokens: 42, outputTokens: 12, totalTokens: 54, cachedInputTokens: 30, reasoningTokens: 4 },
  model: 'gpt-4o',
};
const conv = {
  provider: 'openai' as const,
  protocol: 'openai.chat',
  model: 'gpt-4o',
  messages: [],
  tools: [],
  stream: true,
  streamUsage: true,
};
const ctx = { callIndex: 3, created: 1767225600, shaping: { chunkSize: 8 }, store };

describe('openai.chat codec (golden wire samples)', () => {
  it('decodes a multi-turn request: developer/system roles, text parts, parallel calls, tool results, image-only turns', () => {
    const decoded = openaiChat.decode(json('request.json'), at);
    expect(decoded).toEqual({ ok: true, conversation: json('conversation.json') });
  });

  it('derives match keys: skips a trailing attachment-only user message, scopes hasToolResult to the current turn', () => {
    const decoded = openaiChat.decode(json('request.json'), at);
    if (!decoded.ok) throw new Error('decode failed');
    expect(matchKeysOf(decoded.conversation)).toEqual(json('match-keys.json'));
  });

  it('encodes a non-streamed reply with parallel tool calls', () => {
    const wire = openaiChat.encodeReply(reply, conv, ctx);
    expect(wire.status).toBe(200);
    expect(wire.headers['content-type']).toBe('application/json');
    expect(JSON.parse(wire.body)).toEqual(json('reply-tool-calls.json'));
  });

  it('encodes the streamed chunk sequence byte for byte', () => {
    expect(openaiChat.encodeStream(reply, conv, ctx).events.join('')).toBe(golden('stream-tool-calls.sse'));
  });

  it('encodes a 429 with retry-after', () => {
    expect(
      openaiChat.encodeError({
        status: 429,
        type: 'rate_limit_exceeded',
        message: 'Slow down',
        retryAfter: 3,
      }),
    ).toEqual(json('error-429.json'));
  });

  it('rejects malformed requests with a 400 naming the field', () => {
    expect(openaiChat.decode({ model: 'gpt-4o' }, at)).toEqual({
      ok: false,
      error: expect.objectContaining({ status: 400, message: "'messages' is a required property" }),
    });
    expect(openaiChat.decode({ model: 'gpt-4o', messages: [{ role: 'robot' }] }, at)).toEqual({
      ok: false,
      error: expect.objectContaining({ status: 400, message: 'messages[0]: unknown message role "robot"' }),
    });
  });

  it('serves only POST /chat/completions', () => {
    expect(openaiChat.handles('POST', '/chat/completions')).toBe(true);
    expect(openaiChat.handles('GET', '/chat/completions')).toBe(false);
    expect(openaiChat.handles('POST', '/embeddings')).toBe(false);
  });
});
