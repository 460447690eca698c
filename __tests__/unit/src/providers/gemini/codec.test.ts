import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Conversation, NeutralReply } from '../../../../../src/conversation';
import { matchKeysOf } from '../../../../../src/conversation';
import { encodeGeminiError, geminiGenerateContent as gemini } from '../../../../../src/providers/gemini';
import { createConversationStore } from '../../../../../src/providers/store';

const golden = (name: string) => readFileSync(join(__dirname, 'golden', name), 'utf8');
const json = (name: string) => JSON.parse(golden(name));

const STREAM_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent';
const PATH = '/v1beta/models/gemini-2.5-flash:generateContent';
const at = (path = STREAM_PATH, query = 'alt=sse', store = createConversationStore()) => ({
  path,
  query: new URLSearchParams(query),
  store,
});

const reply: NeutralReply = {
  content: 'Checking both.',
  reasoning: 'Two lookups at once.',
  toolCalls: [
    { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 42, outputTokens: 12, totalTokens: 54, cachedInputTokens: 30, reasoningTokens: 4 },
  model: 'gemini-2.5-flash',
};
const conv: Conversation = {
  provider: 'gemini',
  protocol: 'gemini.generateContent',
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user', text: 'Weather and time in Paris?' }],
  tools: [],
  stream: true,
  streamUsage: true,
};
const ctx = (store = createConversationStore()) => ({
  callIndex: 3,
  created: 1767225600,
  shaping: { chunkSize: 8 },
  store,
});

function decoded(body: unknown, context = at()): Conversation {
  const result = gemini.decode(body, context);
  if (!result.ok) throw new Error(`decode failed: ${result.error.message}`);
  return result.conversation;
}

describe('gemini.generateContent codec (golden wire samples)', () => {
  it('decodes a multi-turn request: system parts, thoughts, parallel calls, results by id and by name, attachments', () => {
    expect(decoded(json('request.json'))).toEqual(json('conversation.json'));
  });

  it('derives match keys from the decoded thread', () => {
    expect(matchKeysOf(decoded(json('request.json')))).toEqual(json('match-keys.json'));
  });

  it('takes the model and streaming from the path (v1, v1beta, v1alpha, tuned models)', () => {
    const body = { contents: [{ parts: [{ text: 'hi' }] }] };
    expect(decoded(body, at(PATH, ''))).toMatchObject({ model: 'gemini-2.5-flash', stream: false });
    expect(decoded(body, at('/v1/models/gemini-2.0-flash:generateContent', ''))).toMatchObject({
      model: 'gemini-2.0-flash',
      stream: false,
      messages: [{ role: 'user', text: 'hi' }],
    });
    expect(decoded(body, at('/v1alpha/tunedModels/my-tune:streamGenerateContent'))).toMatchObject({
      model: 'tunedModels/my-tune',
      stream: true,
    });
  });

  it('encodes a non-streamed reply with a thought, text and parallel function calls', () => {
    const wire = gemini.encodeReply(reply, { ...conv, stream: false }, ctx());
    expect(wire.status).toBe(200);
    expect(wire.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(JSON.parse(wire.body)).toEqual(json('reply-tool-calls.json'));
  });

  it('encodes the streamed chunk sequence byte for byte (CRLF-framed, calls whole, usage last, no sentinel)', () => {
    const wire = gemini.encodeStream(reply, conv, ctx());
    expect(wire.headers['content-type']).toBe('text/event-stream');
    expect(wire.events.join('')).toBe(golden('stream-tool-calls.sse'));
  });

  it('maps finish reasons and omits zero cached/thought counts', () => {
    const plain = { ...reply, reasoning: undefined, toolCalls: [], content: 'Done.' };
    const usage = {
      inputTokens: 5,
      outputTokens: 2,
      totalTokens: 7,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    };
    const finish = (finishReason: NeutralReply['finishReason']) =>
      JSON.parse(gemini.encodeReply({ ...plain, usage, finishReason }, conv, ctx()).body).candidates[0]
        .finishReason;
    expect(['stop', 'tool_calls', 'length', 'content_filter'].map((f) => finish(f as any))).toEqual([
      'STOP',
      'STOP',
      'MAX_TOKENS',
      'SAFETY',
    ]);
    expect(JSON.parse(gemini.encodeReply({ ...plain, usage }, conv, ctx()).body).usageMetadata).toEqual({
      promptTokenCount: 5,
      candidatesTokenCount: 2,
      totalTokenCount: 7,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }],
    });
  });

  it('gives calls sent back without ids the ids the reply carried, and links results by name and order', () => {
    const store = createConversationStore();
    gemini.encodeReply(reply, conv, ctx(store));
    const next = decoded(
      {
        contents: [
          { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
          {
            role: 'model',
            parts: [
              { text: 'Checking both.' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { name: 'get_time', args: { tz: 'Europe/Paris' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'get_time', response: { output: '09:30' } } },
              { functionResponse: { name: 'get_weather', response: { output: { tempC: 18 } } } },
            ],
          },
        ],
      },
      at(PATH, '', store),
    );
    expect(next.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        text: 'Checking both.',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
        ],
      },
      { role: 'tool', text: '09:30', toolCallId: 'call_b' },
      { role: 'tool', text: '{"tempC":18}', toolCallId: 'call_a' },
    ]);
  });

  it('merges consecutive model contents (a streamed chat history) into one assistant turn', () => {
    const c = decoded({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hel' }] },
        { role: 'model', parts: [{ text: 'lo' }] },
        { role: 'model', parts: [{ functionCall: { name: 'ping', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'ping', response: { ok: true } } }] },
      ],
    });
    expect(c.messages).toEqual([
      { role: 'user', text: 'Hi' },
      {
        role: 'assistant',
        text: 'Hello',
        toolCalls: [{ id: 'call_gemini_t0_0', name: 'ping', arguments: '{}' }],
      },
      { role: 'tool', text: '{"ok":true}', toolCallId: 'call_gemini_t0_0' },
    ]);
    expect(matchKeysOf(c).turnIndex).toBe(1);
  });

  it('encodes errors in the google.rpc envelope with retry-after on retryable statuses', () => {
    expect(
      encodeGeminiError({
        status: 429,
        type: 'rate_limit_exceeded',
        message: 'Quota exceeded',
        retryAfter: 3,
      }),
    ).toEqual(json('error-429.json'));
    const statuses = [400, 403, 404, 429, 500, 503].map((status) => {
      const wire = gemini.encodeError({ status, type: 'api_error', message: 'x' });
      return [status, JSON.parse(wire.body).error.status, wire.headers['retry-after'] ?? null];
    });
    expect(statuses).toEqual([
      [400, 'INVALID_ARGUMENT', null],
      [403, 'PERMISSION_DENIED', null],
      [404, 'NOT_FOUND', null],
      [429, 'RESOURCE_EXHAUSTED', '0'],
      [500, 'INTERNAL', '0'],
      [503, 'UNAVAILABLE', '0'],
    ]);
    expect(JSON.parse(encodeGeminiError({ status: 404, type: 'NOT_FOUND', message: 'nope' }).body)).toEqual({
      error: { code: 404, message: 'nope', status: 'NOT_FOUND' },
    });
  });

  it('rejects malformed requests with a 400 naming the field', () => {
    const bad = (body: unknown, context = at(PATH, '')) => {
      const r = gemini.decode(body, context);
      return r.ok ? 'ok' : `${r.error.status} ${r.error.type} ${r.error.message}`;
    };
    expect(bad({})).toBe(
      '400 INVALID_ARGUMENT * GenerateContentRequest.contents: contents is not specified\n',
    );
    expect(bad({ contents: [{ role: 'robot', parts: [{ text: 'x' }] }] })).toBe(
      '400 INVALID_ARGUMENT * GenerateContentRequest.contents[0].role: Please use a valid role: user, model.\n',
    );
    expect(bad({ contents: [{ role: 'user' }] })).toBe(
      '400 INVALID_ARGUMENT * GenerateContentRequest.contents[0].parts: contents.parts must be a list of Part\n',
    );
    expect(bad({ contents: [{ role: 'user', parts: [{ thought: true }] }] })).toBe(
      "400 INVALID_ARGUMENT * GenerateContentRequest.contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
    );
    expect(bad({ contents: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }] })).toBe(
      '400 INVALID_ARGUMENT * GenerateContentRequest.contents[0].parts[0].function_call.name: Name cannot be empty.\n',
    );
    expect(bad({ contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{}] }] })).toBe(
      '400 INVALID_ARGUMENT * GenerateContentRequest.tools[0].function_declarations[0].name: Name cannot be empty.\n',
    );
    expect(bad([1, 2])).toBe('400 INVALID_ARGUMENT Invalid JSON payload received. Expected an object.');
    expect(bad({ contents: [{ parts: [{ text: 'x' }] }] }, at(STREAM_PATH, ''))).toMatch(/^400 .*\?alt=sse/);
  });

  it('serves only POST generateContent / streamGenerateContent below a versioned models path', () => {
    expect(gemini.handles('POST', PATH)).toBe(true);
    expect(gemini.handles('POST', STREAM_PATH)).toBe(true);
    expect(gemini.handles('POST', '/v1/models/gemini-2.0-flash:generateContent')).toBe(true);
    expect(gemini.handles('GET', PATH)).toBe(false);
    expect(gemini.handles('POST', '/v1beta/models/gemini-2.5-flash:countTokens')).toBe(false);
    expect(gemini.handles('POST', '/v2/models/gemini-2.5-flash:generateContent')).toBe(false);
    expect(gemini.handles('POST', '/v1beta/models:generateContent')).toBe(false);
  });
});
