/**
 * A stand-in for the real providers whose answers carry what real ones do and a mock's defaults
 * never have: dated model snapshots, the provider's own response, item and call ids, creation and
 * completion times, system fingerprints and service tiers, prompt-cache reads and writes
 * (Anthropic's `cache_creation_input_tokens`), thinking with the provider's
 * signature, Gemini `thoughtSignature`s (on calls and on answers) and function calls without an `id`, Responses reasoning
 * items with `encrypted_content` and a summary in parts (or none), Bedrock's reasoning signature and latency.
 * Every body is written here by hand, not by the package's encoders, so a replay that loses a
 * field shows.
 *
 * The "model": a request without a tool result after the user's question calls `get_weather`
 * for Paris; one with it answers from the result.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Conversation, matchKeysOf } from '../../src/conversation';
import { anthropicMessages } from '../../src/providers/anthropic-messages';
import { bedrockConverse } from '../../src/providers/bedrock-converse';
import { encodeEvent } from '../../src/providers/bedrock-converse/event-stream';
import type { ProviderCodec } from '../../src/providers/codec';
import { geminiGenerateContent } from '../../src/providers/gemini';
import { openaiChat } from '../../src/providers/openai-chat';
import { openaiResponses } from '../../src/providers/openai-responses';
import { createConversationStore } from '../../src/providers/store';

export interface RealisticUpstream {
  url: string;
  /** Requests served: protocol, streamed or not. */
  requests: Array<{ protocol: string; streamed: boolean }>;
  close(): Promise<void>;
}

type Json = Record<string, any>;
export type Reply = {
  status: number;
  headers: Record<string, string>;
  events?: Array<string | Uint8Array>;
  body?: string;
};

/** What the "model" does this turn. */
export interface Turn {
  call: boolean;
  /** The tool result it answers from. */
  result?: string;
  /** A serial per request, so every id is its own. */
  n: number;
}

const ARGS = '{"city":"Paris"}';
const answerOf = (t: Turn) => `It is ${JSON.parse(t.result ?? '{}').tempC ?? '?'} C in Paris.`;
const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
const named = (type: string, payload: Json) => `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
const json = (body: unknown, headers: Record<string, string> = {}): Reply => ({
  status: 200,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const stream = (events: Array<string | Uint8Array>, type = 'text/event-stream; charset=utf-8'): Reply => ({
  status: 200,
  headers: { 'content-type': type },
  events,
});
/** Splits text the way a model streams it: a few characters at a time, not the mock's chunk size. */
const pieces = (text: string, size = 9) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

// ── OpenAI Chat Completions ─────────────────────────────────────────────────────────────────

function chat(t: Turn, conversation: Conversation): Reply {
  const id = `chatcmpl-CXq3Lm8ZyQ2f0aB9sK1rT7uV${t.n}`;
  const head = {
    id,
    created: 1761823931 + t.n,
    model: 'gpt-4o-2024-08-06',
    service_tier: 'default',
    system_fingerprint: 'fp_cbf1785567',
  };
  const callId = `call_Q3Lw9Zp1Vt8Yb2Nc7Xe4Rk${t.n}`;
  const usage = {
    prompt_tokens: 1180,
    completion_tokens: t.call ? 17 : 12,
    total_tokens: t.call ? 1197 : 1192,
    prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
  if (!conversation.stream) {
    const message = t.call
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: 'get_weather', arguments: ARGS } }],
          refusal: null,
          annotations: [],
        }
      : { role: 'assistant', content: answerOf(t), refusal: null, annotations: [] };
    return json(
      {
        ...head,
        object: 'chat.completion',
        choices: [{ index: 0, message, logprobs: null, finish_reason: t.call ? 'tool_calls' : 'stop' }],
        usage,
      },
      { 'x-request-id': `req_${t.n}` },
    );
  }
  const chunk = (delta: Json, finish: string | null = null) =>
    sse({
      ...head,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(conversation.streamUsage ? { usage: null } : {}),
    });
  const events = t.call
    ? [
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            { index: 0, id: callId, type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
          refusal: null,
        }),
        ...pieces(ARGS, 4).map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
        chunk({}, 'tool_calls'),
      ]
    : [
        chunk({ role: 'assistant', content: '', refusal: null }),
        ...pieces(answerOf(t)).map((c) => chunk({ content: c })),
        chunk({}, 'stop'),
      ];
  if (conversation.streamUsage)
    events.push(sse({ ...head, object: 'chat.completion.chunk', choices: [], usage }));
  events.push('data: [DONE]\n\n');
  return stream(events);
}

// ── OpenAI Responses (a reasoning model, stateless: reasoning comes back encrypted) ─────────

function responses(t: Turn, conversation: Conversation, body: Json): Reply {
  const id = `resp_0b8f6e2d4a1c9e7f5${t.n}`;
  const reasoningId = `rs_0b8f6e2d4a1c9e7f5${t.n}`;
  const created = 1761823931 + t.n;
  const encrypted = `gAAAAABo8xTq${Buffer.from(`reasoning-${t.n}`).toString('base64url')}Zm9yLXRoZS1yZWNvcmQ=`;
  // The reasoning comes back encrypted; its summary, when one is asked for, in parts (none before
  // a bare tool call).
  const summary =
    body.reasoning?.summary && !t.call
      ? ['**Reading the tool result**\n\nThe tool says 18 C.', '**Answering**\n\nA short answer will do.']
      : [];
  const reasoning = {
    id: reasoningId,
    type: 'reasoning',
    summary: summary.map((text) => ({ type: 'summary_text', text })),
    encrypted_content: encrypted,
  };
  const output: Json[] = [reasoning];
  if (t.call)
    output.push({
      id: `fc_0b8f6e2d4a1c9e7f5${t.n}`,
      type: 'function_call',
      status: 'completed',
      arguments: ARGS,
      call_id: `call_Vp3Kd8Tm1Qx6Zr9Bn2Lw${t.n}`,
      name: 'get_weather',
    });
  else
    output.push({
      id: `msg_0b8f6e2d4a1c9e7f5${t.n}`,
      type: 'message',
      status: 'completed',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: answerOf(t) }],
      role: 'assistant',
    });
  const usage = {
    input_tokens: 312,
    input_tokens_details: { cached_tokens: 256 },
    output_tokens: 210,
    output_tokens_details: { reasoning_tokens: 192 },
    total_tokens: 522,
  };
  const response = (final: boolean) => ({
    id,
    object: 'response',
    created_at: created,
    status: final ? 'completed' : 'in_progress',
    background: false,
    completed_at: final ? created + 3 : null,
    error: null,
    frequency_penalty: 0,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    max_tool_calls: null,
    model: 'o4-mini-2025-04-16',
    moderation: null,
    output: final ? output : [],
    parallel_tool_calls: true,
    presence_penalty: 0,
    previous_response_id: null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    safety_identifier: null,
    service_tier: final ? 'default' : 'auto',
    store: false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tool_usage: {
      image_gen: {
        input_tokens: 0,
        input_tokens_details: { image_tokens: 0, text_tokens: 0 },
        output_tokens: 0,
        output_tokens_details: { image_tokens: 0, text_tokens: 0 },
        total_tokens: 0,
      },
      web_search: { num_requests: 0 },
    },
    tools: (body.tools ?? []).map((tool: Json) => ({
      type: 'function',
      description: tool.description ?? null,
      name: tool.name,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? true,
    })),
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage: final ? usage : null,
    user: null,
    metadata: {},
  });
  if (!conversation.stream) return json(response(true));
  let seq = 0;
  const events: string[] = [];
  const emit = (type: string, fields: Json) =>
    events.push(named(type, { type, ...fields, sequence_number: seq++ }));
  emit('response.created', { response: response(false) });
  emit('response.in_progress', { response: response(false) });
  emit('response.output_item.added', { output_index: 0, item: { ...reasoning, summary: [] } });
  summary.forEach((text, summary_index) => {
    const at = { item_id: reasoningId, output_index: 0, summary_index };
    emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
    for (const delta of pieces(text, 7)) emit('response.reasoning_summary_text.delta', { ...at, delta });
    emit('response.reasoning_summary_text.done', { ...at, text });
    emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
  });
  emit('response.output_item.done', { output_index: 0, item: reasoning });
  const last = output[1];
  if (t.call) {
    emit('response.output_item.added', {
      output_index: 1,
      item: { ...last, status: 'in_progress', arguments: '' },
    });
    for (const delta of pieces(ARGS, 5))
      emit('response.function_call_arguments.delta', { item_id: last.id, output_index: 1, delta });
    emit('response.function_call_arguments.done', { item_id: last.id, output_index: 1, arguments: ARGS });
  } else {
    const text = answerOf(t);
    emit('response.output_item.added', {
      output_index: 1,
      item: { ...last, status: 'in_progress', content: [] },
    });
    emit('response.content_part.added', {
      item_id: last.id,
      output_index: 1,
      content_index: 0,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    });
    for (const delta of pieces(text))
      emit('response.output_text.delta', {
        item_id: last.id,
        output_index: 1,
        content_index: 0,
        delta,
        logprobs: [],
      });
    emit('response.output_text.done', {
      item_id: last.id,
      output_index: 1,
      content_index: 0,
      text,
      logprobs: [],
    });
    emit('response.content_part.done', {
      item_id: last.id,
      output_index: 1,
      content_index: 0,
      part: last.content[0],
    });
  }
  emit('response.output_item.done', { output_index: 1, item: last });
  emit('response.completed', { response: response(true) });
  return stream(events);
}

// ── Anthropic Messages (thinking on, prompt cache written then read) ────────────────────────

function messages(t: Turn, conversation: Conversation): Reply {
  const id = `msg_01XFDUDYJgAACzvnptvVoYE${t.n}`;
  const thinking = t.call
    ? 'The user asks for the weather in Paris; get_weather answers that.'
    : 'The tool says 18 C.';
  const signature = `EqQBCkgIARABGAIiQL1x${Buffer.from(thinking).toString('base64')}Ygc2lnbmVkIGJ5IHRoZSBwcm92aWRlcg==`;
  const content: Json[] = [{ type: 'thinking', thinking, signature }];
  if (t.call)
    content.push({
      type: 'tool_use',
      id: `toolu_01A09q90qw90lq917835lq${t.n}`,
      name: 'get_weather',
      input: { city: 'Paris' },
      caller: { type: 'direct' },
    });
  else content.push({ type: 'text', text: answerOf(t) });
  // The first turn writes the prompt cache (the default five-minute one), the second reads it.
  const write = t.call ? 1536 : 0;
  const read = t.call ? 0 : 1536;
  const usage = (output: number) => ({
    input_tokens: 21,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: 'standard',
  });
  const stop = t.call ? 'tool_use' : 'end_turn';
  const model = 'claude-sonnet-4-5-20250929';
  if (!conversation.stream)
    return json(
      {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: usage(96),
      },
      { 'request-id': `req_011CV${t.n}` },
    );
  const events = [
    named('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(4),
      },
    }),
  ];
  const delta = (index: number, d: Json) =>
    named('content_block_delta', { type: 'content_block_delta', index, delta: d });
  events.push(
    named('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
  );
  events.push(named('ping', { type: 'ping' }));
  for (const p of pieces(thinking, 11)) events.push(delta(0, { type: 'thinking_delta', thinking: p }));
  events.push(delta(0, { type: 'signature_delta', signature }));
  events.push(named('content_block_stop', { type: 'content_block_stop', index: 0 }));
  if (t.call) {
    const use = content[1];
    events.push(
      named('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: {
          type: 'tool_use',
          id: use.id,
          name: use.name,
          input: {},
          caller: { type: 'direct' },
        },
      }),
    );
    events.push(delta(1, { type: 'input_json_delta', partial_json: '' }));
    for (const p of pieces(ARGS, 6)) events.push(delta(1, { type: 'input_json_delta', partial_json: p }));
  } else {
    events.push(
      named('content_block_start', {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'text', text: '' },
      }),
    );
    for (const p of pieces(answerOf(t))) events.push(delta(1, { type: 'text_delta', text: p }));
  }
  events.push(named('content_block_stop', { type: 'content_block_stop', index: 1 }));
  events.push(
    named('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: usage(96),
    }),
  );
  events.push(named('message_stop', { type: 'message_stop' }));
  return stream(events);
}

// ── Gemini (2.5, thinking: calls come without ids and with thought signatures) ─────────────

function gemini(t: Turn, conversation: Conversation): Reply {
  const signature = `CiQB0e2Kb${Buffer.from(`thought-${t.n}`).toString('base64')}CiIB0e2Kbw==`;
  const usageMetadata = {
    promptTokenCount: 64,
    candidatesTokenCount: t.call ? 5 : 9,
    totalTokenCount: t.call ? 151 : 155,
    cachedContentTokenCount: 32,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 64 }],
    cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 32 }],
    thoughtsTokenCount: 82,
  };
  const head = { modelVersion: 'gemini-2.5-flash', responseId: `Wq3pZt2gKPm7${t.n}` };
  // A thinking model signs its answer too: on the text part, or streamed on a last part of its own.
  const parts: Json[] = t.call
    ? [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: signature }]
    : [{ text: answerOf(t), thoughtSignature: signature }];
  const candidate = (p: Json[], last: boolean) => ({
    content: { parts: p, role: 'model' },
    ...(last ? { finishReason: 'STOP' } : {}),
    index: 0,
  });
  if (!conversation.stream)
    return {
      ...json({ candidates: [candidate(parts, true)], usageMetadata, ...head }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    };
  const chunks: Json[][] = t.call
    ? [parts]
    : [...pieces(answerOf(t), 12).map((text) => [{ text }]), [{ text: '', thoughtSignature: signature }]];
  return stream(
    chunks.map((p, i) => {
      const last = i === chunks.length - 1;
      return `data: ${JSON.stringify({ candidates: [candidate(p, last)], ...(last ? { usageMetadata } : { usageMetadata: { promptTokenCount: 64, totalTokenCount: 64, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 64 }] } }), ...head })}\r\n\r\n`;
    }),
    'text/event-stream',
  );
}

// ── Bedrock Converse (Claude through Bedrock: reasoning with its signature) ─────────────────

function converse(t: Turn, conversation: Conversation): Reply {
  const reasoning = t.call ? 'The user wants the Paris weather.' : 'The tool answered.';
  const signature = `EqoBCkgIBxABGAIiQF${Buffer.from(reasoning).toString('base64')}`;
  const toolUseId = `tooluse_kZJMlvQmRJ6eAyJE5GIl7${t.n}`;
  const usage = {
    inputTokens: 40,
    outputTokens: 30,
    totalTokens: 2118,
    cacheReadInputTokens: t.call ? 0 : 2048,
    cacheWriteInputTokens: t.call ? 2048 : 0,
  };
  const metrics = { latencyMs: 812 + t.n };
  const headers = { 'x-amzn-requestid': `8f3a2c1e-7b6d-4e5f-9a0b-1c2d3e4f5a6${t.n % 10}` };
  const stopReason = t.call ? 'tool_use' : 'end_turn';
  if (!conversation.stream) {
    const content: Json[] = [{ reasoningContent: { reasoningText: { text: reasoning, signature } } }];
    content.push(
      t.call
        ? { toolUse: { toolUseId, name: 'get_weather', input: { city: 'Paris' } } }
        : { text: answerOf(t) },
    );
    return json({ metrics, output: { message: { content, role: 'assistant' } }, stopReason, usage }, headers);
  }
  const events: Array<{ type: string; payload: Json }> = [
    { type: 'messageStart', payload: { role: 'assistant' } },
  ];
  for (const text of pieces(reasoning, 10))
    events.push({
      type: 'contentBlockDelta',
      payload: { contentBlockIndex: 0, delta: { reasoningContent: { text } } },
    });
  events.push({
    type: 'contentBlockDelta',
    payload: { contentBlockIndex: 0, delta: { reasoningContent: { signature } } },
  });
  events.push({ type: 'contentBlockStop', payload: { contentBlockIndex: 0 } });
  if (t.call) {
    events.push({
      type: 'contentBlockStart',
      payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId, name: 'get_weather' } } },
    });
    for (const input of pieces(ARGS, 7))
      events.push({
        type: 'contentBlockDelta',
        payload: { contentBlockIndex: 1, delta: { toolUse: { input } } },
      });
  } else
    for (const text of pieces(answerOf(t)))
      events.push({ type: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { text } } });
  events.push({ type: 'contentBlockStop', payload: { contentBlockIndex: 1 } });
  events.push({ type: 'messageStop', payload: { stopReason } });
  events.push({ type: 'metadata', payload: { usage, metrics } });
  return {
    status: 200,
    headers: { 'content-type': 'application/vnd.amazon.eventstream', ...headers },
    events: events.map((e, i) =>
      encodeEvent({
        messageType: 'event',
        type: e.type,
        payload: { ...e.payload, p: 'abcdefghij'.slice(0, 1 + (i % 10)) },
      }),
    ),
  };
}

/** The stand-in's answer on one protocol, as the wire carries it. */
export function realisticAnswer(protocol: string, turn: Turn, conversation: Conversation, body: Json): Reply {
  const route = ROUTES.find((r) => r.codec.protocol === protocol);
  if (!route) throw new Error(`no stand-in for ${protocol}`);
  return route.answer(turn, conversation, body);
}

const ROUTES: Array<{
  prefix: string;
  codec: ProviderCodec;
  answer: (t: Turn, c: Conversation, body: Json) => Reply;
}> = [
  { prefix: '/openai/v1', codec: openaiChat, answer: chat },
  { prefix: '/openai/v1', codec: openaiResponses, answer: responses },
  { prefix: '/anthropic', codec: anthropicMessages, answer: messages },
  { prefix: '/gemini', codec: geminiGenerateContent, answer: gemini },
  { prefix: '/bedrock', codec: bedrockConverse, answer: converse },
];

async function read(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  res.writeHead(reply.status, reply.headers);
  if (reply.body !== undefined) {
    res.end(reply.body);
    return;
  }
  for (const event of reply.events ?? []) {
    res.write(event);
    await new Promise((r) => setTimeout(r, 1));
  }
  res.end();
}

export async function startRealisticUpstream(): Promise<RealisticUpstream> {
  const requests: RealisticUpstream['requests'] = [];
  const store = createConversationStore();
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://upstream');
      const route = ROUTES.find(
        (r) =>
          url.pathname.startsWith(r.prefix) &&
          r.codec.handles(req.method ?? '', url.pathname.slice(r.prefix.length)),
      );
      if (!route)
        return send(res, {
          status: 404,
          headers: { 'content-type': 'text/plain' },
          body: `no route for ${url.pathname}`,
        });
      const body = JSON.parse(await read(req));
      const decoded = route.codec.decode(body, {
        path: url.pathname.slice(route.prefix.length),
        query: url.searchParams,
        store,
      });
      if (!decoded.ok)
        return send(res, {
          status: 400,
          headers: { 'content-type': 'text/plain' },
          body: decoded.error.message,
        });
      const { conversation } = decoded;
      requests.push({ protocol: route.codec.protocol, streamed: conversation.stream });
      const keys = matchKeysOf(conversation);
      const result = keys.hasToolResult
        ? (conversation.messages.findLast((m) => m.role === 'tool')?.text ?? '')
        : undefined;
      await send(
        res,
        route.answer(
          { call: !keys.hasToolResult, ...(result !== undefined && { result }), n: n++ },
          conversation,
          body,
        ),
      );
    } catch (error) {
      send(res, { status: 500, headers: { 'content-type': 'text/plain' }, body: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
