import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralReply } from '../../../../src/conversation';
import { anthropicMessages } from '../../../../src/providers/anthropic-messages';
import type { ProviderCodec, ReplyDecoder } from '../../../../src/providers/codec';
import { geminiGenerateContent } from '../../../../src/providers/gemini';
import { openaiChat } from '../../../../src/providers/openai-chat';
import { openaiResponses } from '../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../src/providers/store';

/** Recording reads the providers' responses back: each codec's own golden samples must round-trip. */
const golden = (codec: string, name: string) => readFileSync(join(__dirname, codec, 'golden', name), 'utf8');

const usage = {
  inputTokens: 42,
  outputTokens: 12,
  totalTokens: 54,
  cachedInputTokens: 30,
  reasoningTokens: 4,
};
const calls = (prefix: string) => [
  { id: `${prefix}a`, name: 'get_weather', arguments: '{"city":"Paris"}' },
  { id: `${prefix}b`, name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
];

/**
 * The replies the goldens were encoded from (see each codec's own test), and what the golden
 * carries beyond them that recording keeps so a replay sends it back: the ids, times and tier
 * the mock made for it, the signature it made for the reasoning.
 */
const GOLDEN: Array<{
  name: string;
  codec: ProviderCodec;
  reply: NeutralReply;
  kept: Partial<NeutralReply>;
}> = [
  {
    name: 'openai-chat',
    codec: openaiChat,
    reply: { content: null, toolCalls: calls('call_'), finishReason: 'tool_calls', usage, model: 'gpt-4o' },
    kept: {
      wire: {
        id: 'chatcmpl-understudy000003',
        created: 1767225600,
        serviceTier: 'default',
        systemFingerprint: 'fp_understudy',
      },
    },
  },
  {
    name: 'openai-responses',
    codec: openaiResponses,
    reply: {
      content: null,
      reasoning: 'User wants both.',
      toolCalls: calls('call_'),
      finishReason: 'tool_calls',
      usage,
      model: 'gpt-4o-2024-08-06',
    },
    kept: {
      toolCalls: calls('call_').map((c, i) => ({ ...c, itemId: `fc_understudy000003_${i}` })),
      wire: {
        id: 'resp_understudy000003',
        created: 1767225600,
        completedAt: 1767225600,
        serviceTier: 'default',
        items: { reasoning: 'rs_understudy000003' },
      },
    },
  },
  {
    name: 'anthropic-messages',
    codec: anthropicMessages,
    reply: {
      content: 'Checking both.',
      reasoning: 'Two cities.',
      toolCalls: calls('toolu_'),
      finishReason: 'tool_calls',
      usage,
      model: 'claude-sonnet-4-6',
    },
    kept: {
      reasoningSignature: expect.stringMatching(/^Ek/) as unknown as string,
      wire: { id: 'msg_understudy000003', serviceTier: 'standard' },
    },
  },
  {
    name: 'gemini',
    codec: geminiGenerateContent,
    reply: {
      content: 'Checking both.',
      reasoning: 'Two lookups at once.',
      toolCalls: calls('call_'),
      finishReason: 'tool_calls',
      usage,
      model: 'gemini-2.5-flash',
    },
    kept: { wire: { id: 'understudy000003' } },
  },
];

const decoderOf = (codec: ProviderCodec): ReplyDecoder => {
  if (!codec.reply) throw new Error(`${codec.protocol} has no reply decoder`);
  return codec.reply;
};

function conversationFor(codec: ProviderCodec, stream: boolean): Conversation {
  return {
    provider: codec.provider,
    protocol: codec.protocol,
    model: 'm',
    messages: [{ role: 'user', text: 'hi' }],
    tools: [],
    stream,
    streamUsage: true,
  };
}

const ctx = (chunkSize: number) => ({
  callIndex: 7,
  created: 1767225600,
  shaping: { chunkSize },
  store: createConversationStore(),
});

describe.each(GOLDEN)('$name reply decoder', ({ name, codec, reply, kept }) => {
  const decoder = decoderOf(codec);

  it('reads the golden plain reply back into the reply it was encoded from, with what identifies it', () => {
    expect(decoder.decodeReply(JSON.parse(golden(name, 'reply-tool-calls.json')))).toEqual({
      ok: true,
      complete: true,
      reply: { ...reply, ...kept },
      ...(name === 'openai-responses' ? { raw: expect.any(Object) } : {}),
    });
  });

  it('reads the golden SSE stream back into the same reply, with what identifies it', () => {
    const result = decoder.decodeStream(golden(name, 'stream-tool-calls.sse'));
    expect(result).toMatchObject({ ok: true, complete: true, reply: { ...reply, ...kept } });
  });

  it('marks a stream cut before its terminal event as incomplete', () => {
    const text = golden(name, 'stream-tool-calls.sse');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const result = decoder.decodeStream(cut.slice(0, cut.lastIndexOf('\n\n') + 2));
    expect(result).toMatchObject({ ok: true, complete: false });
  });

  it.each([
    ['text only', { content: 'Hello there, how can I help you today?', toolCalls: [] }],
    ['one tool call', { content: null, toolCalls: [calls('id_')[0]] }],
    ['text cut by the length limit', { content: 'Once upon a time', toolCalls: [], finishReason: 'length' }],
    ['unicode text', { content: 'Grüße 👋 — ça va?', toolCalls: [] }],
  ])('round-trips %s, plain and streamed, whatever the chunk size', (_title, partial) => {
    const full: NeutralReply = {
      finishReason: partial.toolCalls.length > 0 ? 'tool_calls' : 'stop',
      usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13, cachedInputTokens: 0, reasoningTokens: 0 },
      model: 'm',
      ...(partial as Partial<NeutralReply>),
    } as NeutralReply;
    for (const size of [1, 3, 20]) {
      const plain = codec.encodeReply(full, conversationFor(codec, false), ctx(size));
      expect(decoder.decodeReply(JSON.parse(plain.body))).toMatchObject({ ok: true, reply: full });
      const stream = codec.encodeStream(full, conversationFor(codec, true), ctx(size));
      expect(decoder.decodeStream(stream.events.join(''))).toMatchObject({
        ok: true,
        complete: true,
        reply: full,
      });
    }
  });

  it('reads the provider error envelope back', () => {
    const wire = codec.encodeError({
      status: 429,
      type: 'rate_limit_exceeded',
      message: 'Slow down',
      retryAfter: 3,
    });
    const error = decoder.decodeError(wire.status, JSON.parse(wire.body), 3);
    expect(error).toMatchObject({ status: 429, message: 'Slow down', retryAfter: 3 });
  });

  it('keeps a body that is not the provider envelope as the message', () => {
    expect(decoder.decodeError(502, '<html>Bad gateway</html>')).toEqual({
      status: 502,
      type: 'api_error',
      message: '<html>Bad gateway</html>',
    });
  });
});

describe('protocol details', () => {
  it('openai.responses: a streamed text reply (golden) and an error event', () => {
    const decoder = decoderOf(openaiResponses);
    expect(decoder.decodeStream(golden('openai-responses', 'stream-text.sse'))).toMatchObject({
      ok: true,
      complete: true,
      reply: { content: 'It is 18°C.', toolCalls: [], finishReason: 'stop' },
    });
    expect(
      decoder.decodeStream('event: error\ndata: {"type":"error","code":"server_error","message":"boom"}\n\n'),
    ).toEqual({
      ok: false,
      error: { status: 500, type: 'server_error', message: 'boom', code: 'server_error' },
    });
  });

  it('openai.responses: a recorded response is kept under the provider ids, so chained requests decode', () => {
    const store = createConversationStore();
    const at = { path: '/responses', query: new URLSearchParams(), store };
    const first = openaiResponses.decode({ model: 'gpt-4o', instructions: 'Be brief.', input: 'Hi' }, at);
    if (!first.ok) throw new Error('decode failed');
    const raw = {
      id: 'resp_real123',
      object: 'response',
      status: 'completed',
      model: 'gpt-4o',
      output: [
        { id: 'fc_real1', type: 'function_call', call_id: 'call_real1', name: 'look', arguments: '{}' },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    };
    openaiResponses.reply?.remember?.(raw, first.conversation, store);
    const next = openaiResponses.decode(
      {
        model: 'gpt-4o',
        previous_response_id: 'resp_real123',
        input: [{ type: 'function_call_output', call_id: 'call_real1', output: 'ok' }],
      },
      at,
    );
    expect(next.ok && next.conversation.messages).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: null, toolCalls: [{ id: 'call_real1', name: 'look', arguments: '{}' }] },
      { role: 'tool', text: 'ok', toolCallId: 'call_real1' },
    ]);
  });

  it('anthropic.messages: an error event mid-stream is the provider error', () => {
    const text =
      'event: message_start\ndata: {"type":"message_start","message":{"model":"claude","usage":{"input_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    expect(decoderOf(anthropicMessages).decodeStream(text)).toEqual({
      ok: false,
      error: { status: 500, type: 'overloaded_error', message: 'Overloaded' },
    });
  });

  it('gemini: function calls without ids (older API versions) come back with empty ids', () => {
    const body = {
      candidates: [
        { content: { parts: [{ functionCall: { name: 'look', args: { q: 1 } } }] }, finishReason: 'STOP' },
      ],
      modelVersion: 'gemini-2.5-flash',
    };
    expect(decoderOf(geminiGenerateContent).decodeReply(body)).toMatchObject({
      ok: true,
      reply: {
        content: null,
        toolCalls: [{ id: '', name: 'look', arguments: '{"q":1}' }],
        finishReason: 'tool_calls',
      },
    });
  });

  it('openai.chat: a legacy function_call and the usage chunk of a streamed reply', () => {
    const decoder = decoderOf(openaiChat);
    expect(
      decoder.decodeReply({
        model: 'gpt-3.5-turbo',
        choices: [
          {
            message: { role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } },
            finish_reason: 'function_call',
          },
        ],
      }),
    ).toMatchObject({
      ok: true,
      reply: { toolCalls: [{ id: '', name: 'f', arguments: '{}' }], finishReason: 'tool_calls' },
    });
  });
});
