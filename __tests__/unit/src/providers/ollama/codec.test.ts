/**
 * Ollama's native codecs against the wire samples of Ollama's API reference (docs/api.md): the
 * requests decode, the replies carry the fields the samples show, a stream reads back whole or cut.
 */
import { describe, expect, it } from '@jest/globals';
import type { ConversationStore, NeutralMessage, NeutralReply } from '../../../../../src/conversation';
import type { EncodeContext } from '../../../../../src/providers/codec';
import { ollamaChat, ollamaGenerate } from '../../../../../src/providers/ollama';
import { decodeOllamaStream } from '../../../../../src/providers/ollama/reply';

function store(): ConversationStore {
  const map = new Map<string, NeutralMessage[]>();
  return { get: (id) => map.get(id), set: (id, m) => void map.set(id, m) };
}
const ctx = (s = store()): EncodeContext => ({ callIndex: 1, created: 1767225600, shaping: {}, store: s });
const decodeCtx = (s = store()) => ({ path: '/api/chat', query: new URLSearchParams(), store: s });

// docs/api.md, "Chat request (with tools)".
const TOOLS_REQUEST = {
  model: 'llama3.2',
  messages: [{ role: 'user', content: 'What is the weather today in Paris?' }],
  stream: false,
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_current_weather',
        description: 'Get the current weather for a location',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string' },
            format: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          },
          required: ['location', 'format'],
        },
      },
    },
  ],
};
// Its response's keys, and the last line of a stream ("Chat Request (Streaming)", "Final response").
const RESPONSE_KEYS = [
  'model',
  'created_at',
  'message',
  'done_reason',
  'done',
  'total_duration',
  'load_duration',
  'prompt_eval_count',
  'prompt_eval_duration',
  'eval_count',
  'eval_duration',
];

const reply = (over: Partial<NeutralReply> = {}): NeutralReply => ({
  content: '',
  toolCalls: [
    { id: 'call_1', name: 'get_current_weather', arguments: '{"format":"celsius","location":"Paris, FR"}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 122, outputTokens: 33, totalTokens: 155, cachedInputTokens: 0, reasoningTokens: 0 },
  model: 'llama3.2',
  ...over,
});

describe('/api/chat', () => {
  it("decodes the reference's tool request, streaming only when not told otherwise", () => {
    const decoded = ollamaChat.decode(TOOLS_REQUEST, decodeCtx());
    if (!decoded.ok) throw new Error(decoded.error.message);
    expect(decoded.conversation).toMatchObject({
      protocol: 'ollama.chat',
      provider: 'ollama',
      model: 'llama3.2',
      stream: false,
      messages: [{ role: 'user', text: 'What is the weather today in Paris?' }],
      tools: [{ name: 'get_current_weather' }],
    });
    const { stream: _, ...streamed } = TOOLS_REQUEST;
    const again = ollamaChat.decode(streamed, decodeCtx());
    expect(again.ok && again.conversation.stream).toBe(true);
  });

  it("answers with the reference's fields: tool calls with object arguments, done_reason stop, the eval counts", () => {
    const decoded = ollamaChat.decode(TOOLS_REQUEST, decodeCtx());
    if (!decoded.ok) throw new Error('decode');
    const wire = ollamaChat.encodeReply(reply(), decoded.conversation, ctx());
    const body = JSON.parse(wire.body);
    expect(Object.keys(body)).toEqual(RESPONSE_KEYS);
    expect(body).toMatchObject({
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 122,
      eval_count: 33,
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_1',
            function: {
              index: 0,
              name: 'get_current_weather',
              arguments: { format: 'celsius', location: 'Paris, FR' },
            },
          },
        ],
      },
    });
  });

  it('streams NDJSON: pieces with done false, the calls in one line, a last line with the counts; read back whole or cut', () => {
    const decoded = ollamaChat.decode({ ...TOOLS_REQUEST, stream: true }, decodeCtx());
    if (!decoded.ok) throw new Error('decode');
    const wire = ollamaChat.encodeStream(
      reply({ content: 'Let me check the weather.' }),
      decoded.conversation,
      ctx(),
    );
    expect(wire.headers['content-type']).toBe('application/x-ndjson');
    const lines = (wire.events as string[]).map((e) => {
      expect(e.endsWith('\n')).toBe(true);
      return JSON.parse(e);
    });
    expect(lines.slice(0, -1).every((l) => l.done === false)).toBe(true);
    expect(lines.filter((l) => l.message.tool_calls)).toHaveLength(1);
    expect(Object.keys(lines.at(-1))).toEqual([
      'model',
      'created_at',
      'message',
      'done',
      'done_reason',
      ...RESPONSE_KEYS.slice(5),
    ]);
    const whole = decodeOllamaStream((wire.events as string[]).join(''));
    expect(whole).toMatchObject({
      ok: true,
      complete: true,
      reply: {
        content: 'Let me check the weather.',
        toolCalls: [{ id: 'call_1', name: 'get_current_weather' }],
      },
    });
    const cut = decodeOllamaStream((wire.events as string[]).slice(0, 1).join(''));
    expect(cut).toMatchObject({ ok: true, complete: false, reply: { toolCalls: [] } });
    expect(decodeOllamaStream('{"error":"runner stopped"}\n')).toMatchObject({
      ok: false,
      error: { message: 'runner stopped' },
    });
  });

  it('links results sent back without ids to the calls the reply made, by place', () => {
    const s = store();
    const first = ollamaChat.decode(TOOLS_REQUEST, decodeCtx(s));
    if (!first.ok) throw new Error('decode');
    ollamaChat.encodeReply(reply(), first.conversation, ctx(s));
    // As ChatOllama sends the turn back: the call under a uuid of its own, the result with no id.
    const next = ollamaChat.decode(
      {
        ...TOOLS_REQUEST,
        messages: [
          ...TOOLS_REQUEST.messages,
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              {
                id: 'f0e1-uuid',
                type: 'function',
                function: {
                  name: 'get_current_weather',
                  arguments: { format: 'celsius', location: 'Paris, FR' },
                },
              },
            ],
          },
          { role: 'tool', content: '{"tempC":18}' },
        ],
      },
      decodeCtx(s),
    );
    if (!next.ok) throw new Error('decode');
    expect(next.conversation.messages.slice(1)).toMatchObject([
      { role: 'assistant', toolCalls: [{ id: 'call_1' }] },
      { role: 'tool', toolCallId: 'call_1', text: '{"tempC":18}' },
    ]);
  });

  it.each([
    [{ messages: [] }, 'model is required'],
    [
      { model: 'llama3.2', messages: [{ role: 'robot', content: 'x' }] },
      'messages[0].role "robot" is not one of system, user, assistant, tool',
    ],
    [{ model: 'llama3.2', format: 'yaml' }, 'invalid format: "yaml"; expected "json" or a JSON schema'],
    [
      {
        model: 'llama3.2',
        messages: [
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{}' } }] },
        ],
      },
      'messages[0].tool_calls[0].function.arguments must be an object',
    ],
  ])("refuses %j with a 400 in Ollama's shape", (body, message) => {
    const decoded = ollamaChat.decode(body, decodeCtx());
    expect(decoded).toMatchObject({ ok: false, error: { status: 400, message } });
    if (decoded.ok) return;
    expect(JSON.parse(ollamaChat.encodeError(decoded.error).body)).toEqual({ error: message });
  });
});

describe('/api/generate', () => {
  it("decodes the reference's request and answers with `response`", () => {
    const decoded = ollamaGenerate.decode(
      { model: 'llama3.2', prompt: 'Why is the sky blue?', stream: false },
      decodeCtx(),
    );
    if (!decoded.ok) throw new Error('decode');
    expect(decoded.conversation.messages).toEqual([{ role: 'user', text: 'Why is the sky blue?' }]);
    const body = JSON.parse(
      ollamaGenerate.encodeReply(
        reply({ content: 'Rayleigh scattering.', toolCalls: [], finishReason: 'stop' }),
        decoded.conversation,
        ctx(),
      ).body,
    );
    expect(body).toMatchObject({
      model: 'llama3.2',
      response: 'Rayleigh scattering.',
      done: true,
      done_reason: 'stop',
    });
  });
});
