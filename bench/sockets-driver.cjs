'use strict';
/**
 * The socket-turn scenario of the bench (bench/sockets.bench.ts): one model turn over each socket
 * protocol jest-understudy serves, driven by real clients (openai's ResponsesWS, a raw `ws` client
 * sending the Realtime API's events, @google/genai's `ai.live.connect`), the same way against every
 * target. A target is only an origin: none (the providers' own URLs, answered by the environment in
 * process), the floor's replay server, or aimock. Nothing here asserts on time; the figures are raw samples.
 */
const { performance } = require('node:perf_hooks');

const API_KEY = 'sk-understudy-bench';
const SYSTEM = 'You are a travel helper. Use the tools when they help.';
const REALTIME_MODEL = 'gpt-realtime';
const RESPONSES_MODEL = 'gpt-4o';
const LIVE_MODEL = 'gemini-live-2.5-flash-preview';
// aimock serves Gemini Live under v1beta only; every target is asked the same version.
const LIVE_API_VERSION = 'v1beta';

// The same two tools as the HTTP phases ask for.
const { TOOL_DECLARATIONS } = require('./driver.cjs');
const TOOL_RESULT = { city: 'Paris', tempC: 18, sky: 'sunny' };

const KEYS = { text: 'bench-socket-text', tools: 'bench-socket-tools', trip: 'bench-socket-trip' };

/**
 * The fixtures, in a shape both jest-understudy (`understudy.model.use`) and aimock
 * (`addFixturesFromJSON`) read the same way: the key in the user message, and for the round trip
 * `hasToolResult` telling the call from the answer. Tool-call ids are fixed, so every target
 * returns the same ones.
 */
const FIXTURES = [
  {
    match: { userMessage: KEYS.text },
    response: { content: 'It is 18°C and sunny in Paris; the local time is 09:30.' },
  },
  {
    match: { userMessage: KEYS.tools },
    response: {
      toolCalls: [
        { id: 'call_bench_weather_0001', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_bench_time_0002', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      ],
    },
  },
  {
    match: { userMessage: KEYS.trip, hasToolResult: false },
    response: {
      toolCalls: [{ id: 'call_bench_trip_0001', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    },
  },
  {
    match: { userMessage: KEYS.trip, hasToolResult: true },
    response: { content: 'It is 18°C and sunny in Paris.' },
  },
];

/**
 * The rows: a protocol and a turn. A turn is what the agent waits on: the user's message to the
 * turn's end, and for a round trip the function call, its output sent back, and the answer.
 */
const ROWS = [
  { id: 'responses-ws tools', protocol: 'responses-ws', key: KEYS.tools, trip: false },
  { id: 'realtime text', protocol: 'realtime', key: KEYS.text, trip: false },
  { id: 'realtime tool round trip', protocol: 'realtime', key: KEYS.trip, trip: true },
  { id: 'live text', protocol: 'live', key: KEYS.text, trip: false },
  { id: 'live tool round trip', protocol: 'live', key: KEYS.trip, trip: true },
];

/** The codec that must have answered each protocol's turns (`ModelCall.protocol`). */
const CODECS = { 'responses-ws': 'openai.responses', realtime: 'openai.realtime', live: 'gemini.live' };

const userText = (row) => `What is the weather in Paris right now? (${row.key})`;

/** Events as they arrive, read in order by `next(predicate)`; a failure rejects the reader. */
function inbox() {
  const queue = [];
  let waiter;
  let failure;
  const wake = () => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  return {
    push(event) {
      queue.push(event);
      wake();
    },
    fail(error) {
      failure ??= error instanceof Error ? error : new Error(JSON.stringify(error));
      wake();
    },
    /** The next event that satisfies `predicate`; the ones before it are passed to `skip`. */
    async next(predicate, skip) {
      for (;;) {
        while (queue.length > 0) {
          const event = queue.shift();
          if (predicate(event)) return event;
          skip?.(event);
        }
        if (failure) throw failure;
        await new Promise((resolve) => {
          waiter = resolve;
        });
      }
    },
  };
}

const once = (emitter, event) => new Promise((resolve) => emitter.once(event, resolve));
const parsed = (args) => (typeof args === 'string' ? JSON.parse(args) : args);

/**
 * The clients of one target, made once (`origin`: undefined for the SDKs' own URLs). @google/genai
 * joins a root base URL and its Live path as `//ws/…`, which aimock's URL parsing reads as a host;
 * a base URL with a path avoids that, and `/openai` is one aimock maps back to its own paths.
 */
function clientsFor(sdks, origin, { livePrefix = '' } = {}) {
  return {
    realtimeURL: `${origin ? origin.replace(/^http/, 'ws') : 'wss://api.openai.com'}/v1/realtime?model=${REALTIME_MODEL}`,
    openai: new sdks.OpenAI({ apiKey: API_KEY, maxRetries: 0, ...(origin && { baseURL: `${origin}/v1` }) }),
    genai: new sdks.GoogleGenAI({
      apiKey: API_KEY,
      httpOptions: { apiVersion: LIVE_API_VERSION, ...(origin && { baseUrl: `${origin}${livePrefix}` }) },
    }),
  };
}

// ── Responses WebSocket mode: ResponsesWS (the `ws` package), one response.create per turn ─────
async function openResponses(sdks, clients) {
  const socket = new sdks.ResponsesWS(clients.openai);
  const events = inbox();
  socket.on('event', (e) => events.push(e));
  socket.on('error', (e) => events.fail(e));
  const closed = once(socket, 'close');
  if (socket.socket.readyState !== 1) await once(socket.socket, 'open');
  return {
    async turn(row) {
      socket.send({
        type: 'response.create',
        model: RESPONSES_MODEL,
        instructions: SYSTEM,
        input: [{ role: 'user', content: userText(row) }],
        tools: TOOL_DECLARATIONS.map((t) => ({ type: 'function', ...t, strict: false })),
      });
      let text = null;
      const end = await events.next(
        (e) =>
          e.type === 'response.completed' || e.type === 'response.incomplete' || e.type === 'response.failed',
        (e) => {
          if (e.type === 'response.output_text.delta') text = (text ?? '') + e.delta;
        },
      );
      const calls = end.response.output.filter((o) => o.type === 'function_call');
      return [
        {
          text,
          toolCalls: calls.map((c) => ({ id: c.call_id, name: c.name, arguments: parsed(c.arguments) })),
          end: end.response.status,
        },
      ];
    },
    async close() {
      socket.close();
      await closed;
    },
  };
}

// ── OpenAI Realtime: a raw client on the `ws` package, a text session ────────────────────────
// openai's OpenAIRealtimeWS always opens `wss:`, so it cannot reach the floor or aimock on plain
// loopback `ws:`; the raw client sends the same events (the API's JSON, one per message).
async function openRealtime(sdks, clients) {
  const socket = new sdks.ws.WebSocket(clients.realtimeURL, {
    headers: { Authorization: `Bearer ${API_KEY}` },
    perMessageDeflate: false,
  });
  const events = inbox();
  socket.on('message', (data) => {
    const event = JSON.parse(String(data));
    if (event.type === 'error')
      events.fail(new Error(`Realtime error event: ${JSON.stringify(event.error)}`));
    else events.push(event);
  });
  socket.on('error', (e) => events.fail(e));
  const closed = once(socket, 'close');
  const send = (event) => socket.send(JSON.stringify(event));
  await once(socket, 'open');
  await events.next((e) => e.type === 'session.created');
  send({
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['text'],
      instructions: SYSTEM,
      tools: TOOL_DECLARATIONS.map((t) => ({ type: 'function', ...t })),
    },
  });
  await events.next((e) => e.type === 'session.updated');
  /** One response: its streamed text, its function calls, its status. */
  const response = async () => {
    let text = null;
    const done = await events.next(
      (e) => e.type === 'response.done',
      (e) => {
        if (e.type === 'response.output_text.delta') text = (text ?? '') + e.delta;
      },
    );
    const calls = done.response.output.filter((o) => o.type === 'function_call');
    return {
      text,
      toolCalls: calls.map((c) => ({ id: c.call_id, name: c.name, arguments: parsed(c.arguments) })),
      end: done.response.status,
    };
  };
  return {
    async turn(row) {
      send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: userText(row) }] },
      });
      send({ type: 'response.create' });
      const first = await response();
      if (!row.trip) return [first];
      for (const call of first.toolCalls)
        send({
          type: 'conversation.item.create',
          item: { type: 'function_call_output', call_id: call.id, output: JSON.stringify(TOOL_RESULT) },
        });
      send({ type: 'response.create' });
      return [first, await response()];
    },
    async close() {
      socket.close();
      await closed;
    },
  };
}

// ── Gemini Live: ai.live.connect (the `ws` package), TEXT ──────────────────────────────────────
async function openLive(_sdks, clients) {
  const events = inbox();
  let closed;
  const whenClosed = new Promise((resolve) => {
    closed = resolve;
  });
  const session = await clients.genai.live.connect({
    model: LIVE_MODEL,
    config: {
      responseModalities: ['TEXT'],
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
    callbacks: {
      onmessage: (message) => events.push(message),
      onerror: (e) => events.fail(e),
      onclose: (e) => {
        events.fail(new Error(`the Live session closed (${e.code})`));
        closed();
      },
    },
  });
  return {
    /**
     * The user's turn to its end: every function call answered; the turn ends at the first
     * `turnComplete` after some text (a `turnComplete` right after a `toolCall` is noted in `ends`).
     */
    async turn(row) {
      session.sendClientContent({
        turns: [{ role: 'user', parts: [{ text: userText(row) }] }],
        turnComplete: true,
      });
      let text = null;
      const toolCalls = [];
      const ends = [];
      for (;;) {
        const message = await events.next(() => true);
        for (const part of message.serverContent?.modelTurn?.parts ?? [])
          if (typeof part.text === 'string') text = (text ?? '') + part.text;
        if (message.toolCall) {
          ends.push('toolCall');
          const calls = message.toolCall.functionCalls;
          for (const c of calls) toolCalls.push({ id: c.id, name: c.name, arguments: c.args });
          session.sendToolResponse({
            functionResponses: calls.map((c) => ({ id: c.id, name: c.name, response: TOOL_RESULT })),
          });
        }
        if (message.serverContent?.turnComplete) {
          ends.push('turnComplete');
          if (text !== null) return [{ text, toolCalls, end: ends.join(' ') }];
        }
      }
    },
    async close() {
      session.close();
      await whenClosed;
    },
  };
}

const OPENERS = { 'responses-ws': openResponses, realtime: openRealtime, live: openLive };

/** Opens a session of the row's protocol on a target's clients. */
function openSession(row, sdks, clients) {
  return OPENERS[row.protocol](sdks, clients);
}

/** One untimed session: open, the turn, close; the turn's summary. */
async function summarize(row, sdks, clients) {
  const session = await openSession(row, sdks, clients);
  try {
    return await session.turn(row);
  } finally {
    await session.close();
  }
}

/**
 * Times one turn per call on each target, the targets alternating call by call (the order
 * rotates each round), after `warmup` untimed calls each. Every call opens a session, times the
 * turn alone (wall and this process's CPU), and closes it: the session's opening is timed apart
 * (`open`), and neither the opening nor the close is in the turn's figure.
 */
async function measureTurns(row, sdks, targets, { warmup, calls }) {
  const names = Object.keys(targets);
  const out = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [], open: [] }]));
  const one = async (name, timed) => {
    const o0 = performance.now();
    const session = await openSession(row, sdks, targets[name]);
    const o1 = performance.now();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await session.turn(row);
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    await session.close();
    if (!timed) return;
    out[name].wall.push(t1 - t0);
    out[name].cpu.push((c.user + c.system) / 1000);
    out[name].open.push(o1 - o0);
  };
  for (let i = 0; i < warmup; i++) for (const n of names) await one(n, false);
  for (let i = 0; i < calls; i++)
    for (let k = 0; k < names.length; k++) await one(names[(i + k) % names.length], true);
  return out;
}

/**
 * Records what one client socket of the `ws` package sent and received while `fn` runs: each
 * received frame with the number of messages the client had sent before it. Server-side sockets
 * (the environment's own, if it shares this `ws`) are left out.
 */
async function captureFrames(ws, fn) {
  const proto = ws.WebSocket.prototype;
  const { emit, send } = proto;
  const log = { sent: 0, frames: [] };
  proto.send = function (data, ...rest) {
    if (!this._isServer) log.sent++;
    return send.call(this, data, ...rest);
  };
  proto.emit = function (event, ...args) {
    if (event === 'message' && !this._isServer) {
      const [data, isBinary] = args;
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      log.frames.push({ after: log.sent, data: bytes, binary: isBinary });
    }
    return emit.call(this, event, ...args);
  };
  try {
    await fn(log);
  } finally {
    proto.send = send;
    proto.emit = emit;
  }
  return log;
}

/**
 * The floor: a `ws` server on 127.0.0.1 that sends back the captured frames and does nothing
 * else. On a connection it sends the frames that came before the client's first message; after
 * the client's n-th message, those that came after it. It reads no message.
 */
async function replayServer(ws, log) {
  const byMessage = [];
  for (const f of log.frames) {
    byMessage[f.after] ??= [];
    byMessage[f.after].push(f);
  }
  const server = new ws.WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: false,
    maxPayload: 0,
  });
  await once(server, 'listening');
  server.on('connection', (socket) => {
    let received = 0;
    const play = (frames) => {
      for (const f of frames ?? []) socket.send(f.data, { binary: f.binary });
    };
    play(byMessage[0]);
    socket.on('message', () => play(byMessage[++received]));
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Where two summaries differ, field by field (`[]` when they are equal); `path` names the field.
 */
function differences(a, b, path = '') {
  if (a === b) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return [{ path: path || '(reply)', expected: a, got: b }];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => differences(a[k], b[k], path ? `${path}.${k}` : k));
}

module.exports = {
  API_KEY,
  CODECS,
  FIXTURES,
  ROWS,
  clientsFor,
  openSession,
  summarize,
  measureTurns,
  captureFrames,
  replayServer,
  differences,
};
