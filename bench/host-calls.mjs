/**
 * The per-call baselines that run in a plain Node process (the host), one target per process so
 * one target's interception never sees another's traffic:
 *
 *   node bench/host-calls.mjs <msw|aimock|floor> <input.json> <output.json>
 *
 * input.json is what bench/calls.bench.ts wrote (the bytes the environment served, per variant,
 * and the reply summaries); every target must return the same summary before it is timed.
 */
import { deepStrictEqual } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import driver from './driver.cjs';

const { DEFAULT_PLAN, PROTOCOLS, REPLIES, VARIANTS, createClient, makeCall, measure, summarize } = driver;
const sdks = { OpenAI, Anthropic, GoogleGenAI };
const [target, inputPath, outputPath] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inputPath, 'utf8'));
const plan = input.plan ?? DEFAULT_PLAN;

const cannedResponse = (c) =>
  new Response(c.body, { status: 200, headers: { 'content-type': c.contentType } });

/** Per target: a client for a variant, `select` before a variant's calls, and how to stop. */
async function start() {
  if (target === 'floor') {
    // The in-process floor again, outside any Jest sandbox (shows what the sandbox itself costs).
    return {
      client: (variant) =>
        createClient(variant.protocol, sdks, { fetch: async () => cannedResponse(input.canned[variant.id]) }),
      select: () => {},
      stop: async () => {},
    };
  }
  if (target === 'msw') {
    const { http } = await import('msw');
    const { setupServer } = await import('msw/node');
    let current;
    // A bare msw handler per endpoint (matched on the path, as msw does, so Gemini's `?alt=sse`
    // passes): the canned body of the variant being measured, nothing else.
    const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const handlers = Object.values(PROTOCOLS).map(({ url }) =>
      http.post(new RegExp(`^${escapeRe(url)}$`), () => cannedResponse(current)),
    );
    const server = setupServer(...handlers);
    server.listen({ onUnhandledFrame: 'error' }); // msw 3: unhandled requests fail, nothing leaves
    return {
      client: (variant) => createClient(variant.protocol, sdks),
      select: (variant) => {
        current = input.canned[variant.id];
      },
      stop: async () => server.close(),
    };
  }
  if (target === 'aimock') {
    const { LLMock } = await import('@copilotkit/aimock');
    const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
    for (const { key, response } of Object.values(REPLIES)) mock.onMessage(key, response);
    await mock.start();
    const origin = mock.url;
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(origin)) throw new Error(`aimock is not on loopback: ${origin}`);
    return {
      // The same SDKs pointed at aimock: /v1/chat/completions, /v1/responses, /v1/messages, /v1beta/models/…
      client: (variant) => createClient(variant.protocol, sdks, { origin }),
      select: () => {},
      stop: () => mock.stop(),
    };
  }
  throw new Error(`unknown target ${target}`);
}

/**
 * Where a target's reply is known to differ from the environment's in a field that is not the
 * reply's content: aimock ends a Gemini function-call turn with finishReason FUNCTION_CALL (the
 * Gemini API, and the environment, send STOP). Compared without that field, and reported.
 */
const KNOWN_DIFFERENCES = { aimock: { 'gemini tools/sse': ['finishReason'] } };

const { client, select, stop } = await start();
const samples = {};
const cpu = {};
const differences = {};
try {
  const calls = {};
  for (const variant of VARIANTS) {
    const c = client(variant);
    select(variant);
    const actual = await summarize(c, variant);
    const expected = { ...input.summaries[variant.id] };
    for (const field of KNOWN_DIFFERENCES[target]?.[variant.id] ?? []) {
      if (actual[field] !== expected[field])
        differences[variant.id] = { field, [target]: actual[field], environment: expected[field] };
      delete actual[field];
      delete expected[field];
    }
    deepStrictEqual(actual, expected, `${target} ${variant.id}`);
    calls[variant.id] = { [target]: makeCall(c, variant) };
  }
  // As in the sandbox: every variant warms up before any is timed.
  for (const variant of VARIANTS) {
    select(variant);
    await measure(calls[variant.id], { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
  }
  for (const variant of VARIANTS) {
    select(variant);
    const m = await measure(calls[variant.id], plan);
    samples[variant.id] = m.wall[target];
    cpu[variant.id] = m.cpu[target];
  }
} finally {
  await stop();
}
writeFileSync(outputPath, JSON.stringify({ target, samples, cpu, differences }));
