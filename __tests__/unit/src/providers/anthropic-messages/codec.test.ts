import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { type Conversation, matchKeysOf, type NeutralReply } from '../../../../../src/conversation';
import { anthropicMessages, encodeAnthropicError } from '../../../../../src/providers/anthropic-messages';
import type { DecodeResult } from '../../../../../src/providers/codec';
import { createConversationStore } from '../../../../../src/providers/store';

const golden = (name: string) => readFileSync(join(__dirname, 'golden', name), 'utf8');
const json = (name: string) => JSON.parse(golden(name));

function decoder() {
  const store = createConversationStore();
  const at = { path: '/v1/messages', query: new URLSearchParams(), store };
  return { store, decode: (body: unknown) => anthropicMessages.decode(body, at) };
}
const { decode, store } = decoder();

function conversationOf(result: DecodeResult): Conversation {
  if (!result.ok) throw new Error(`decode failed: ${result.error.message}`);
  return result.conversation;
}

const usage = {
  inputTokens: 42,
  outputTokens: 12,
  totalTokens: 54,
  cachedInputTokens: 30,
  reasoningTokens: 4,
};
const reply: NeutralReply = {
  content: 'Checking both.',
  reasoning: 'Two cities.',
  toolCalls: [
    { id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'toolu_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage,
  model: 'claude-sonnet-4-6',
};
const conv: Conversation = {
  provider: 'anthropic',
  protocol: 'anthropic.messages',
  model: 'claude-sonnet-4-6',
  messages: [],
  tools: [],
  stream: true,
  streamUsage: true,
};
const ctx = { callIndex: 3, created: 1767225600, shaping: { chunkSize: 8 }, store };
const base = { model: 'claude-sonnet-4-6', max_tokens: 256 };

describe('anthropic.messages codec (golden wire samples)', () => {
  it('decodes a multi-turn request: system blocks, thinking, parallel tool_use, tool_result (is_error) + text, attachments, server tools', () => {
    expect(decode(json('request.json'))).toEqual({ ok: true, conversation: json('conversation.json') });
  });

  it('derives match keys: skips a trailing attachment-only user message, counts assistant turns', () => {
    expect(matchKeysOf(conversationOf(decode(json('request.json'))))).toEqual(json('match-keys.json'));
  });

  it('a user turn of tool_result blocks only yields tool messages, so hasToolResult holds', () => {
    const c = conversationOf(
      decode({
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'w', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] },
        ],
      }),
    );
    expect(c.messages.slice(1)).toEqual([
      { role: 'assistant', text: null, toolCalls: [{ id: 'toolu_1', name: 'w', arguments: '{}' }] },
      { role: 'tool', text: null, toolCallId: 'toolu_1' },
    ]);
    expect(matchKeysOf(c)).toMatchObject({ hasToolResult: true, toolCallId: 'toolu_1', turnIndex: 1 });
  });

  it('encodes a non-streamed reply: thinking, text, parallel tool_use, stop_reason and usage with cache and thinking tokens', () => {
    const wire = anthropicMessages.encodeReply(reply, conv, ctx);
    expect(wire.status).toBe(200);
    expect(wire.headers).toEqual({
      'content-type': 'application/json',
      'request-id': 'req_understudy000003',
    });
    expect(JSON.parse(wire.body)).toEqual(json('reply-tool-calls.json'));
  });

  it('encodes the streamed event sequence byte for byte', () => {
    const wire = anthropicMessages.encodeStream(reply, conv, ctx);
    expect(wire.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(wire.events.join('')).toBe(golden('stream-tool-calls.sse'));
  });

  it('maps finish reasons to stop_reason and always sends a text block for an empty answer', () => {
    const plain = (finishReason: NeutralReply['finishReason'], content: string | null) =>
      JSON.parse(
        anthropicMessages.encodeReply({ content, toolCalls: [], finishReason, usage, model: 'm' }, conv, ctx)
          .body,
      );
    expect(plain('stop', 'Hi.')).toMatchObject({
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'Hi.' }],
    });
    expect(plain('length', 'Hi')).toMatchObject({ stop_reason: 'max_tokens' });
    expect(plain('content_filter', '')).toMatchObject({
      stop_reason: 'refusal',
      content: [{ type: 'text', text: '' }],
    });
    const events = anthropicMessages
      .encodeStream({ content: '', toolCalls: [], finishReason: 'stop', usage, model: 'm' }, conv, ctx)
      .events.map((e) => String(e).split('\n')[0]);
    expect(events).toEqual([
      'event: message_start',
      'event: content_block_start',
      'event: ping',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
  });

  it('encodes a 529 as overloaded_error with request-id and retry-after 0', () => {
    expect(encodeAnthropicError({ status: 529, type: 'api_error', message: 'Overloaded' })).toEqual(
      json('error-529.json'),
    );
  });

  it('maps error types by status, keeps Anthropic types, sends codes as details.error_code', () => {
    const body = (e: Parameters<typeof encodeAnthropicError>[0]) =>
      JSON.parse(encodeAnthropicError(e).body).error;
    expect(body({ status: 429, type: 'rate_limit_exceeded', message: 'x' })).toEqual({
      type: 'rate_limit_error',
      message: 'x',
    });
    expect(body({ status: 500, type: 'server_error', message: 'x' }).type).toBe('api_error');
    expect(body({ status: 404, type: 'invalid_request_error', message: 'x' }).type).toBe(
      'invalid_request_error',
    );
    expect(body({ status: 403, type: 'x', message: 'x' }).type).toBe('permission_error');
    expect(body({ status: 401, type: 'authentication_error', message: 'x' }).type).toBe(
      'authentication_error',
    );
    expect(body({ status: 404, type: 'not_found_error', message: 'x', code: 'thread_not_found' })).toEqual({
      type: 'not_found_error',
      message: 'x',
      details: { error_code: 'thread_not_found' },
    });
    expect(
      encodeAnthropicError({ status: 429, type: 'x', message: 'x', retryAfter: 3 }).headers['retry-after'],
    ).toBe('3');
    expect(
      encodeAnthropicError({ status: 400, type: 'x', message: 'x' }).headers['retry-after'],
    ).toBeUndefined();
  });

  it('rejects malformed requests with a 400 naming the field, worded as the API does', () => {
    const error = (body: unknown) => {
      const r = decode(body);
      return r.ok ? undefined : { status: r.error.status, type: r.error.type, message: r.error.message };
    };
    const invalid = (message: string) => ({ status: 400, type: 'invalid_request_error', message });
    expect(error({ model: 'm', messages: [] })).toEqual(invalid('max_tokens: Field required'));
    expect(error({ max_tokens: 5, messages: [] })).toEqual(invalid('model: Field required'));
    expect(error({ ...base })).toEqual(invalid('messages: Field required'));
    expect(error({ ...base, max_tokens: '5', messages: [] })).toEqual(
      invalid('max_tokens: Input should be a valid integer'),
    );
    expect(error({ ...base, messages: {} })).toEqual(invalid('messages: Input should be a valid list'));
    expect(error({ ...base, messages: [{ role: 'robot', content: 'hi' }] })).toEqual(
      invalid("messages.0.role: Input should be 'user', 'assistant' or 'system'"),
    );
    expect(error({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'user' }] })).toEqual(
      invalid('messages.1.content: Input should be a valid list'),
    );
  });

  it('serves only POST /v1/messages', () => {
    expect(anthropicMessages.handles('POST', '/v1/messages')).toBe(true);
    expect(anthropicMessages.handles('GET', '/v1/messages')).toBe(false);
    expect(anthropicMessages.handles('POST', '/v1/messages/count_tokens')).toBe(false);
    expect(anthropicMessages.handles('POST', '/v1/complete')).toBe(false);
  });
});

describe('message threads (thread: create / continue)', () => {
  const tool = { name: 'search', description: 'Search', input_schema: { type: 'object' } };

  it('keeps a threaded reply under its id; a continue request gets the whole thread, system and tools back', () => {
    const { decode, store } = decoder();
    const first = conversationOf(
      decode({
        ...base,
        system: 'Be brief.',
        tools: [tool],
        thread: { type: 'create' },
        messages: [{ role: 'user', content: 'Find it' }],
      }),
    );
    const wire = anthropicMessages.encodeReply(
      {
        content: null,
        reasoning: 'Search first.',
        toolCalls: [{ id: 'toolu_s', name: 'search', arguments: '{"q":"it"}' }],
        finishReason: 'tool_calls',
        usage,
        model: 'claude-sonnet-4-6',
      },
      first,
      { ...ctx, callIndex: 7, store },
    );
    const id = JSON.parse(wire.body).id;
    expect(id).toBe('msg_understudy000007');
    const next = conversationOf(
      decode({
        ...base,
        thread: { type: 'continue', previous_message_id: id },
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_s', content: 'found' }] },
        ],
      }),
    );
    expect(next.messages).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'Find it' },
      {
        role: 'assistant',
        text: null,
        toolCalls: [{ id: 'toolu_s', name: 'search', arguments: '{"q":"it"}' }],
        reasoning: 'Search first.',
        opaque: [
          {
            type: 'thinking',
            thinking: 'Search first.',
            signature:
              'EkoKSHav+ZFGQiQxjRKXC96+NU/AOae7prLirrTJVPW7QexbIxpsh3hoXEkuIXx7VxOltbaGx3DZNyCk+3nMFh99h9B5Ammb5CyKjkb7u0UBcmUX6GsixWoYn3YlptpJCBskUQ==',
          },
        ],
      },
      { role: 'tool', text: 'found', toolCallId: 'toolu_s' },
    ]);
    expect(next.tools).toEqual([{ name: 'search', description: 'Search', parameters: { type: 'object' } }]);
    expect(matchKeysOf(next)).toMatchObject({ turnIndex: 1, hasToolResult: true, toolCallId: 'toolu_s' });
  });

  it('system messages in a continue request add and remove tools', () => {
    const { decode, store } = decoder();
    const first = conversationOf(
      decode({
        ...base,
        tools: [tool],
        thread: { type: 'create' },
        messages: [{ role: 'user', content: 'a' }],
      }),
    );
    anthropicMessages.encodeStream(
      { content: 'ok', toolCalls: [], finishReason: 'stop', usage, model: 'm' },
      first,
      { ...ctx, callIndex: 1, store },
    );
    const next = conversationOf(
      decode({
        ...base,
        thread: { type: 'continue', previous_message_id: 'msg_understudy000001' },
        messages: [
          {
            role: 'system',
            content: [
              { type: 'tool_removal', tool: { type: 'tool_reference', name: 'search' } },
              {
                type: 'tool_addition',
                tool: { type: 'tool_definition', definition: { name: 'fetch', input_schema: {} } },
              },
              { type: 'text', text: 'Fetch instead.' },
            ],
          },
          { role: 'user', content: 'b' },
        ],
      }),
    );
    expect(next.tools).toEqual([{ name: 'fetch', parameters: {} }]);
    expect(next.messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'a'],
      ['assistant', 'ok'],
      ['system', 'Fetch instead.'],
      ['user', 'b'],
    ]);
  });

  it('an unthreaded reply is not kept; continuing from it is a 404 thread_not_found', () => {
    const { decode, store } = decoder();
    const plain = conversationOf(decode({ ...base, messages: [{ role: 'user', content: 'a' }] }));
    anthropicMessages.encodeReply(
      { content: 'ok', toolCalls: [], finishReason: 'stop', usage, model: 'm' },
      plain,
      { ...ctx, callIndex: 2, store },
    );
    const r = decode({
      ...base,
      thread: { type: 'continue', previous_message_id: 'msg_understudy000002' },
      messages: [{ role: 'user', content: 'b' }],
    });
    expect(r).toEqual({
      ok: false,
      error: {
        status: 404,
        type: 'not_found_error',
        message: 'thread.previous_message_id: no thread holds the message "msg_understudy000002"',
        code: 'thread_not_found',
      },
    });
  });
});
