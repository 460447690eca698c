import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { type Conversation, matchKeysOf, type NeutralReply } from '../../../../../src/conversation';
import { openaiResponses } from '../../../../../src/providers/openai-responses';
import { createConversationStore } from '../../../../../src/providers/store';

const golden = (name: string) => readFileSync(join(__dirname, 'golden', name), 'utf8');
const json = (name: string) => JSON.parse(golden(name));

function setup() {
  const store = createConversationStore();
  const at = { path: '/responses', query: new URLSearchParams(), store };
  const ctx = { callIndex: 3, created: 1767225600, shaping: { chunkSize: 8 }, store };
  const decode = (body: unknown): Conversation => {
    const decoded = openaiResponses.decode(body, at);
    if (!decoded.ok) throw new Error(`decode failed: ${decoded.error.message}`);
    return decoded.conversation;
  };
  return { store, at, ctx, decode };
}

/** Reasoning summary, then two parallel calls, no text: what a reasoning model sends before acting. */
const toolReply: NeutralReply = {
  content: null,
  reasoning: 'User wants both.',
  toolCalls: [
    { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 42, outputTokens: 12, totalTokens: 54, cachedInputTokens: 30, reasoningTokens: 4 },
  model: 'gpt-4o-2024-08-06',
};

const textReply: NeutralReply = {
  content: 'It is 18°C.',
  toolCalls: [],
  finishReason: 'stop',
  usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13, cachedInputTokens: 0, reasoningTokens: 0 },
  model: 'gpt-4o-2024-08-06',
};

describe('openai.responses codec (golden wire samples)', () => {
  it('decodes a multi-turn item list: instructions, developer role, text parts, reasoning, parallel calls, outputs, attachments', () => {
    const { decode } = setup();
    expect(decode(json('request.json'))).toEqual(json('conversation.json'));
  });

  it('derives match keys: one assistant turn per run of output items, trailing attachment-only turn skipped', () => {
    const { decode } = setup();
    expect(matchKeysOf(decode(json('request.json')))).toEqual(json('match-keys.json'));
  });

  it('decodes string input as one user message after the instructions', () => {
    const { decode } = setup();
    expect(decode({ model: 'gpt-4o', instructions: 'Be kind.', input: 'Hi' }).messages).toEqual([
      { role: 'system', text: 'Be kind.' },
      { role: 'user', text: 'Hi' },
    ]);
  });

  it('encodes a non-streamed reply: reasoning item, one function_call item per call, usage details', () => {
    const { ctx, decode } = setup();
    const wire = openaiResponses.encodeReply(toolReply, decode(json('reply-request.json')), ctx);
    expect(wire.status).toBe(200);
    expect(wire.headers['content-type']).toBe('application/json');
    expect(JSON.parse(wire.body)).toEqual(json('reply-tool-calls.json'));
  });

  it('encodes the streamed tool-call sequence byte for byte', () => {
    const { ctx, decode } = setup();
    const wire = openaiResponses.encodeStream(toolReply, decode(json('reply-request.json')), ctx);
    expect(wire.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(wire.events.join('')).toBe(golden('stream-tool-calls.sse'));
  });

  it('encodes the streamed text sequence byte for byte', () => {
    const { ctx, decode } = setup();
    const wire = openaiResponses.encodeStream(
      textReply,
      decode({ model: 'gpt-4o', input: 'Weather?', stream: true }),
      { ...ctx, callIndex: 4 },
    );
    expect(wire.events.join('')).toBe(golden('stream-text.sse'));
  });

  it('the streamed response.completed carries the same response as the plain reply', () => {
    const { ctx, decode } = setup();
    const conversation = decode(json('reply-request.json'));
    const events = openaiResponses.encodeStream(toolReply, conversation, ctx).events;
    const last = JSON.parse(String(events.at(-1)).split('\ndata: ')[1]);
    expect(last.response).toEqual(JSON.parse(openaiResponses.encodeReply(toolReply, conversation, ctx).body));
  });

  it('stores the thread under the response id: a chained request resolves it (instructions not inherited)', () => {
    const { ctx, decode } = setup();
    openaiResponses.encodeReply(toolReply, decode(json('reply-request.json')), ctx);
    const chained = decode(json('chained-request.json'));
    expect(chained).toEqual(json('chained-conversation.json'));
    expect(matchKeysOf(chained)).toMatchObject({
      turnIndex: 1,
      hasToolResult: true,
      toolCallId: 'call_b',
      systemMessage: 'Use tools.',
    });
  });

  it('stores each output item for item_reference: a message and a call merge into one assistant turn', () => {
    const { ctx, decode } = setup();
    const reply = {
      ...toolReply,
      reasoning: undefined,
      content: 'Checking.',
      toolCalls: [toolReply.toolCalls[0]],
    };
    openaiResponses.encodeReply(reply, decode({ model: 'gpt-4o', input: 'Paris?' }), ctx);
    const next = decode({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Paris?' }] },
        { type: 'item_reference', id: 'msg_understudy000003' },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'sunny' },
      ],
    });
    expect(next.messages).toEqual([
      { role: 'user', text: 'Paris?' },
      { role: 'assistant', text: 'Checking.', toolCalls: [toolReply.toolCalls[0]] },
      { role: 'tool', text: 'sunny', toolCallId: 'call_a' },
    ]);
  });

  it('store: false keeps the reply out of the store', () => {
    const { ctx, decode, store } = setup();
    openaiResponses.encodeReply(textReply, decode({ model: 'gpt-4o', input: 'x', store: false }), ctx);
    expect(store.get('resp_understudy000003')).toBeUndefined();
    expect(store.get('msg_understudy000003')).toBeUndefined();
  });

  it('maps finish reasons: length and content_filter end the response incomplete', () => {
    const { ctx, decode } = setup();
    const conversation = decode({ model: 'gpt-4o', input: 'x' });
    const cut = JSON.parse(
      openaiResponses.encodeReply({ ...textReply, finishReason: 'length' }, conversation, ctx).body,
    );
    expect(cut).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
    const filtered = openaiResponses.encodeStream(
      { ...textReply, finishReason: 'content_filter' },
      conversation,
      ctx,
    );
    expect(filtered.events.at(-1)).toMatch(
      /^event: response\.incomplete\ndata: .*"incomplete_details":\{"reason":"content_filter"\}/,
    );
  });

  it('encodes a 429 with retry-after in the OpenAI error envelope', () => {
    expect(
      openaiResponses.encodeError({
        status: 429,
        type: 'rate_limit_exceeded',
        message: 'Slow down',
        retryAfter: 3,
      }),
    ).toEqual(json('error-429.json'));
  });

  it('an unknown previous_response_id is the API 400 with code previous_response_not_found', () => {
    const { at } = setup();
    const decoded = openaiResponses.decode(
      { model: 'gpt-4o', previous_response_id: 'resp_missing', input: 'hi' },
      at,
    );
    if (decoded.ok) throw new Error('expected a decode error');
    expect(openaiResponses.encodeError(decoded.error)).toEqual(json('error-previous-response.json'));
  });

  it('rejects malformed requests with a 400 naming the field', () => {
    const { at } = setup();
    const message = (body: unknown) => {
      const decoded = openaiResponses.decode(body, at);
      if (decoded.ok) throw new Error('expected a decode error');
      expect(decoded.error).toMatchObject({ status: 400, type: 'invalid_request_error' });
      return decoded.error.message;
    };
    expect(message({ input: 'hi' })).toBe("Missing required parameter: 'model'.");
    expect(message({ model: 'gpt-4o', input: { role: 'user' } })).toBe(
      "Invalid type for 'input': expected one of a string or an array of input items, but got an object instead.",
    );
    expect(message({ model: 'gpt-4o', input: [{ role: 'robot', content: 'x' }] })).toBe(
      "Invalid value for 'input[0].role': \"robot\". Supported values are: 'assistant', 'system', 'developer', and 'user'.",
    );
    expect(message({ model: 'gpt-4o', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] })).toBe(
      "Missing required parameter: 'input[0].call_id'.",
    );
    expect(message({ model: 'gpt-4o', input: [{ type: 'function_call_output', call_id: 'c' }] })).toBe(
      "Missing required parameter: 'input[0].output'.",
    );
    expect(message({ model: 'gpt-4o', input: [{ type: 'telepathy' }] })).toBe(
      'Invalid value for \'input[0].type\': "telepathy".',
    );
    expect(message({ model: 'gpt-4o', tools: [{ type: 'function', function: { name: 'f' } }] })).toBe(
      "Missing required parameter: 'tools[0].name'.",
    );
    const missingItem = openaiResponses.decode(
      { model: 'gpt-4o', input: [{ type: 'item_reference', id: 'msg_gone' }] },
      at,
    );
    expect(missingItem).toEqual({
      ok: false,
      error: { status: 404, type: 'invalid_request_error', message: "Item with id 'msg_gone' not found." },
    });
  });

  it('passes over built-in tool items it has no neutral place for', () => {
    const { decode } = setup();
    const conversation = decode({
      model: 'gpt-4o',
      input: [
        { role: 'user', content: 'news?' },
        {
          type: 'web_search_call',
          id: 'ws_1',
          status: 'completed',
          action: { type: 'search', query: 'news' },
        },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Here.' }] },
      ],
      tools: [{ type: 'web_search' }],
    });
    expect(conversation.messages).toEqual([
      { role: 'user', text: 'news?' },
      { role: 'assistant', text: 'Here.' },
    ]);
    expect(conversation.tools).toEqual([]);
  });

  it('serves only POST /responses', () => {
    expect(openaiResponses.handles('POST', '/responses')).toBe(true);
    expect(openaiResponses.handles('GET', '/responses')).toBe(false);
    expect(openaiResponses.handles('POST', '/chat/completions')).toBe(false);
    expect(openaiResponses.protocol).toBe('openai.responses');
  });
});
