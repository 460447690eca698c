'use strict';
/**
 * The per-call scenario and timing loop, shared by the sandbox bench (bench/calls.bench.ts, run by
 * Jest inside jest-understudy's environment) and the host phases (bench/host-calls.mjs): every
 * target answers the same requests with the same reply and is timed by the same code.
 * Nothing here asserts on time; the figures are returned as raw samples.
 */
const { performance } = require('node:perf_hooks');

const URL = 'https://api.openai.com/v1/chat/completions';
const MODEL = 'gpt-4o';
const API_KEY = 'sk-understudy-bench';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Local time in a time zone',
      parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
    },
  },
];

/** The two canned replies: a short content reply and a parallel two-tool-call reply (fixed ids). */
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

/** Tool-call reply first: it is the one the targets are judged on first. */
const VARIANTS = [
  { id: 'tools/json', reply: 'tools', stream: false },
  { id: 'tools/sse', reply: 'tools', stream: true },
  { id: 'content/json', reply: 'content', stream: false },
  { id: 'content/sse', reply: 'content', stream: true },
];

function paramsFor(variant) {
  const { key } = REPLIES[variant.reply];
  const params = {
    model: MODEL,
    messages: [
      { role: 'system', content: 'You are a travel helper. Use the tools when they help.' },
      { role: 'user', content: `What is the weather and the local time in Paris right now? (${key})` },
    ],
    tools: TOOLS,
  };
  if (variant.stream) params.stream = true;
  return params;
}

/** jest-understudy fixtures for both replies (`understudy.model.use(...)`). */
function understudyFixtures() {
  return Object.values(REPLIES).map(({ key, response }) => ({ match: { userMessage: key }, response }));
}

/**
 * Builds the timed call for a client: `chat.completions.create`, and for a streamed variant
 * `stream: true` with every chunk consumed by `for await` (no SDK-side reassembly).
 */
function makeCall(client, variant) {
  const params = paramsFor(variant);
  if (!variant.stream) return () => client.chat.completions.create(params);
  return async () => {
    const stream = await client.chat.completions.create(params);
    let last;
    for await (const chunk of stream) last = chunk;
    return last;
  };
}

/** One untimed call, reduced to what must be equal across targets: content and tool calls. */
async function summarize(client, variant) {
  const params = paramsFor(variant);
  if (!variant.stream) {
    const completion = await client.chat.completions.create(params);
    const message = completion.choices[0].message;
    return {
      content: message.content ?? null,
      toolCalls: (message.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        arguments: JSON.parse(c.function.arguments),
      })),
      finishReason: completion.choices[0].finish_reason,
    };
  }
  const stream = await client.chat.completions.create(params);
  let content = null;
  let finishReason = null;
  const calls = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (typeof choice.delta.content === 'string' && choice.delta.content !== '')
      content = (content ?? '') + choice.delta.content;
    for (const d of choice.delta.tool_calls ?? []) {
      calls[d.index] ??= { id: '', name: '', arguments: '' };
      if (d.id) calls[d.index].id = d.id;
      if (d.function?.name) calls[d.index].name = d.function.name;
      if (d.function?.arguments) calls[d.index].arguments += d.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return {
    content,
    toolCalls: calls.map((c) => ({ ...c, arguments: JSON.parse(c.arguments) })),
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
  TOOLS,
  REPLIES,
  VARIANTS,
  DEFAULT_PLAN,
  paramsFor,
  understudyFixtures,
  makeCall,
  summarize,
  measure,
};
