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
import OpenAI from 'openai';
import driver from './driver.cjs';

const { API_KEY, DEFAULT_PLAN, REPLIES, URL, VARIANTS, makeCall, measure, summarize } = driver;
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
        new OpenAI({
          apiKey: API_KEY,
          maxRetries: 0,
          fetch: async () => cannedResponse(input.canned[variant.id]),
        }),
      select: () => {},
      stop: async () => {},
    };
  }
  if (target === 'msw') {
    const { http } = await import('msw');
    const { setupServer } = await import('msw/node');
    let current;
    // A bare msw handler: the canned body of the variant being measured, nothing else.
    const server = setupServer(http.post(URL, () => cannedResponse(current)));
    server.listen({ onUnhandledFrame: 'error' }); // msw 3: unhandled requests fail, nothing leaves
    return {
      client: () => new OpenAI({ apiKey: API_KEY, maxRetries: 0 }),
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
    const baseURL = `${mock.url}/v1`;
    if (!/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(baseURL))
      throw new Error(`aimock is not on loopback: ${baseURL}`);
    return {
      client: () => new OpenAI({ apiKey: API_KEY, maxRetries: 0, baseURL }),
      select: () => {},
      stop: () => mock.stop(),
    };
  }
  throw new Error(`unknown target ${target}`);
}

const { client, select, stop } = await start();
const samples = {};
const cpu = {};
try {
  const calls = {};
  for (const variant of VARIANTS) {
    const c = client(variant);
    select(variant);
    deepStrictEqual(await summarize(c, variant), input.summaries[variant.id], `${target} ${variant.id}`);
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
writeFileSync(outputPath, JSON.stringify({ target, samples, cpu }));
