'use strict';
/**
 * The per-call scenario and timing loop, shared by the sandbox bench (bench/calls.bench.ts, run by
 * Jest inside jest-understudy's environment) and the host phases (bench/host-calls.mjs): every
 * target answers the same requests with the same reply and is timed by the same code.
 * Nothing here asserts on time; the figures are returned as raw samples.
 */
const { performance } = require('node:perf_hooks');

const API_KEY = 'sk-understudy-bench';
const SYSTEM = 'You are a travel helper. Use the tools when they help.';

/**
 * The wire protocols the mock model speaks: the codec that must serve each (`ModelCall.protocol`),
 * where the SDK sends the request, and the model asked for.
 */
const PROTOCOLS = {
  chat: {
    label: 'OpenAI Chat Completions',
    codec: 'openai.chat',
    url: 'https://api.openai.com/v1/chat/completions',
    model: 'gpt-4o',
  },
  responses: {
    label: 'OpenAI Responses',
    codec: 'openai.responses',
    url: 'https://api.openai.com/v1/responses',
    model: 'gpt-4o',
  },
  anthropic: {
    label: 'Anthropic Messages',
    codec: 'anthropic.messages',
    url: 'https://api.anthropic.com/v1/messages',
    model: 'claude-sonnet-4-6', // a model the SDK does not warn about (a console.warn per call)
  },
  gemini: {
    label: 'Gemini generateContent',
    codec: 'gemini.generateContent',
    // @google/genai 3 asks the v1 API; it adds `?alt=sse` (interceptors match the path).
    url: 'https://generativelanguage.googleapis.com/v1/models/gemini-2.5-flash:streamGenerateContent',
    model: 'gemini-2.5-flash',
  },
};
/** Kept for the chat-only callers. */
const URL = PROTOCOLS.chat.url;
const MODEL = PROTOCOLS.chat.model;

/** The two tools, as neutral declarations; each protocol's request spells them its own way. */
const TOOL_DECLARATIONS = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Local time in a time zone',
    parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
  },
];
const TOOLS = TOOL_DECLARATIONS.map((t) => ({ type: 'function', function: t }));

/**
 * The two canned replies, provider-neutral: one fixture answers every protocol. A short content
 * reply and a parallel two-tool-call reply (fixed ids).
 */
const REPLIES = {
  content: {
    key: 'bench-reply-content',
    response: { content: 'It is 18°C and sunny in Paris; the local time is 09:30.' },
  },
  tools: {
    key: 'bench-reply-tools',
    response: {
      toolCalls: [
        { id: 'call_bench_weather_0001', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_bench_time_0002', name: 'get_time', arguments: { tz: 'Europe/Paris' } },
      ],
    },
  },
};

/**
 * Chat Completions plain and streamed, both replies (the tool-call reply first: it is the one
 * the targets are judged on first); then the same tool-call reply streamed on each other protocol.
 */
const VARIANTS = [
  { id: 'chat tools/json', protocol: 'chat', reply: 'tools', stream: false },
  { id: 'chat tools/sse', protocol: 'chat', reply: 'tools', stream: true },
  { id: 'chat content/json', protocol: 'chat', reply: 'content', stream: false },
  { id: 'chat content/sse', protocol: 'chat', reply: 'content', stream: true },
  { id: 'responses tools/sse', protocol: 'responses', reply: 'tools', stream: true },
  { id: 'anthropic tools/sse', protocol: 'anthropic', reply: 'tools', stream: true },
  { id: 'gemini tools/sse', protocol: 'gemini', reply: 'tools', stream: true },
];

const userText = (variant) =>
  `What is the weather and the local time in Paris right now? (${REPLIES[variant.reply].key})`;

/** The SDK call's parameters: the same system prompt, user message and tools on every protocol. */
function paramsFor(variant) {
  const { model } = PROTOCOLS[variant.protocol];
  const user = userText(variant);
  switch (variant.protocol) {
    case 'chat': {
      const params = {
        model,
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: user },
        ],
        tools: TOOLS,
      };
      if (variant.stream) params.stream = true;
      return params;
    }
    case 'responses':
      return {
        model,
        instructions: SYSTEM,
        input: [{ role: 'user', content: user }],
        tools: TOOL_DECLARATIONS.map((t) => ({ type: 'function', ...t, strict: false })),
        stream: variant.stream,
      };
    case 'anthropic':
      return {
        model,
        max_tokens: 1024,
        system: SYSTEM,
        messages: [{ role: 'user', content: user }],
        tools: TOOL_DECLARATIONS.map(({ name, description, parameters }) => ({
          name,
          description,
          input_schema: parameters,
        })),
        stream: variant.stream,
      };
    case 'gemini':
      return {
        model,
        contents: [{ role: 'user', parts: [{ text: user }] }],
        config: {
          systemInstruction: SYSTEM,
          tools: [
            {
              functionDeclarations: TOOL_DECLARATIONS.map(({ name, description, parameters }) => ({
                name,
                description,
                parametersJsonSchema: parameters,
              })),
            },
          ],
        },
      };
    default:
      throw new Error(`unknown protocol ${variant.protocol}`);
  }
}

/**
 * An SDK client for a protocol. `sdks` are the caller's SDK classes ({ OpenAI, Anthropic,
 * GoogleGenAI }: inside the Jest sandbox they must be the sandbox's). `fetch` replaces the global
 * fetch (the floor); `origin` points the client at another server (aimock: `http://127.0.0.1:port`).
 * No retries anywhere (the Gemini SDK retries only when given `retryOptions`).
 */
function createClient(protocol, sdks, { fetch, origin } = {}) {
  switch (protocol) {
    case 'chat':
    case 'responses':
      return new sdks.OpenAI({
        apiKey: API_KEY,
        maxRetries: 0,
        ...(fetch && { fetch }),
        ...(origin && { baseURL: `${origin}/v1` }),
      });
    case 'anthropic':
      return new sdks.Anthropic({
        apiKey: API_KEY,
        maxRetries: 0,
        ...(fetch && { fetch }),
        ...(origin && { baseURL: origin }),
      });
    case 'gemini':
      // @google/genai takes a custom fetch in `httpOptions` (typed `HttpOptions.fetch`). aimock serves
      // Gemini under /v1beta only, so a client pointed at another origin asks that version.
      return new sdks.GoogleGenAI({
        apiKey: API_KEY,
        httpOptions: { ...(fetch && { fetch }), ...(origin && { baseUrl: origin, apiVersion: 'v1beta' }) },
      });
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
}

/** Starts the variant's request: the parsed reply, or (streamed) the SDK's raw async iterable of events. */
function open(client, variant) {
  const params = paramsFor(variant);
  switch (variant.protocol) {
    case 'chat':
      return client.chat.completions.create(params);
    case 'responses':
      return client.responses.create(params);
    case 'anthropic':
      return client.messages.create(params);
    case 'gemini':
      return variant.stream
        ? client.models.generateContentStream(params)
        : client.models.generateContent(params);
    default:
      throw new Error(`unknown protocol ${variant.protocol}`);
  }
}

/** jest-understudy fixtures for both replies (`understudy.model.use(...)`); they serve every protocol. */
function understudyFixtures() {
  return Object.values(REPLIES).map(({ key, response }) => ({ match: { userMessage: key }, response }));
}

/**
 * Builds the timed call for a client: the plain request, or for a streamed variant the request
 * with every event consumed by `for await` from the SDK's raw stream (no SDK-side reassembly such
 * as `.stream()` / `finalMessage()` on top).
 */
function makeCall(client, variant) {
  if (!variant.stream) return () => open(client, variant);
  return async () => {
    let last;
    for await (const event of await open(client, variant)) last = event;
    return last;
  };
}

const parseArgs = (a) => (typeof a === 'string' ? JSON.parse(a) : a);

/**
 * One untimed call, reduced to what must be equal across targets: content, tool calls (id, name,
 * parsed arguments) and the protocol's own finish reason / stop reason / status.
 */
async function summarize(client, variant) {
  const result = await open(client, variant);
  if (!variant.stream) {
    // Plain calls are Chat Completions only.
    const message = result.choices[0].message;
    return {
      content: message.content ?? null,
      toolCalls: (message.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: JSON.parse(c.function.arguments),
      })),
      finishReason: result.choices[0].finish_reason,
    };
  }
  let content = null;
  let finishReason = null;
  const calls = [];
  const addText = (t) => {
    if (typeof t === 'string' && t !== '') content = (content ?? '') + t;
  };
  for await (const event of result) {
    if (variant.protocol === 'chat') {
      const choice = event.choices[0];
      if (!choice) continue;
      addText(choice.delta.content);
      for (const d of choice.delta.tool_calls ?? []) {
        calls[d.index] ??= { id: '', name: '', arguments: '' };
        if (d.id) calls[d.index].id = d.id;
        if (d.function?.name) calls[d.index].name = d.function.name;
        if (d.function?.arguments) calls[d.index].arguments += d.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    } else if (variant.protocol === 'responses') {
      if (event.type === 'response.output_text.delta') addText(event.delta);
      if (event.type === 'response.output_item.added' && event.item.type === 'function_call')
        calls[event.output_index] = { id: event.item.call_id, name: event.item.name, arguments: '' };
      if (event.type === 'response.function_call_arguments.delta')
        calls[event.output_index].arguments += event.delta;
      if (event.type === 'response.completed' || event.type === 'response.incomplete')
        finishReason = event.response.status;
    } else if (variant.protocol === 'anthropic') {
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use')
        calls[event.index] = { id: event.content_block.id, name: event.content_block.name, arguments: '' };
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
        calls[event.index].arguments += event.delta.partial_json;
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        addText(event.delta.text);
      if (event.type === 'message_delta' && event.delta.stop_reason) finishReason = event.delta.stop_reason;
    } else if (variant.protocol === 'gemini') {
      const candidate = event.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        addText(part.text);
        if (part.functionCall)
          calls.push({
            id: part.functionCall.id,
            name: part.functionCall.name,
            arguments: part.functionCall.args,
          });
      }
      if (candidate?.finishReason) finishReason = candidate.finishReason;
    }
  }
  return {
    content,
    toolCalls: calls.filter(Boolean).map((c) => ({ ...c, arguments: parseArgs(c.arguments) })),
    finishReason,
  };
}

/**
 * Times each target's call `calls` times after `warmup` untimed calls. Targets alternate call by
 * call (the order rotates each turn), so a burst of load on the machine (a shared 2-core box) lands
 * on every target alike instead of on whichever ran during it. Returns, per target, wall-clock ms
 * per call and the process's CPU ms per call (user + system, every thread: less sensitive to
 * other processes competing for the cores, which matters when comparing across processes).
 */
async function measure(targets, { warmup, calls }) {
  const names = Object.keys(targets);
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < warmup; i++) for (const n of names) await targets[n]();
  for (let i = 0; i < calls; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await targets[name]();
      const t1 = performance.now();
      const c = process.cpuUsage(c0);
      wall[name].push(t1 - t0);
      cpu[name].push((c.user + c.system) / 1000);
    }
  }
  return { wall, cpu };
}

const DEFAULT_PLAN = { prewarm: 200, warmup: 50, calls: 300 };

module.exports = {
  URL,
  MODEL,
  API_KEY,
  PROTOCOLS,
  TOOL_DECLARATIONS,
  TOOLS,
  REPLIES,
  VARIANTS,
  DEFAULT_PLAN,
  paramsFor,
  createClient,
  understudyFixtures,
  makeCall,
  summarize,
  measure,
};
