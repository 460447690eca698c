/**
 * Runs inside a real Jest sandbox under jest-understudy's environment (bench/jest.bench.config.ts),
 * started by `npm run bench`. Times the official OpenAI SDK replaying the same canned replies
 * through the environment and through the in-process floor (the SDK given a custom `fetch` that
 * returns the bytes the environment served), and writes the raw samples as JSON to
 * $UNDERSTUDY_BENCH_OUT. It asserts that every target returns the same reply, never on time.
 */
import { writeFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import {
  API_KEY,
  DEFAULT_PLAN,
  makeCall,
  measure,
  paramsFor,
  summarize,
  URL,
  understudyFixtures,
  VARIANTS,
} from './driver.cjs';

interface Canned {
  status: number;
  contentType: string;
  body: string;
}

const out = process.env.UNDERSTUDY_BENCH_OUT;
const plan = process.env.UNDERSTUDY_BENCH_PLAN ? JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN) : DEFAULT_PLAN;

it('replays the same calls through the environment and the in-process floor', async () => {
  understudy.model.use(understudyFixtures());
  // SDK clients on the sandbox's global fetch: the environment's.
  const environment = new OpenAI({ apiKey: API_KEY, maxRetries: 0 });

  const canned: Record<string, Canned> = {};
  const summaries: Record<string, unknown> = {};
  const calls: Record<string, { environment: () => Promise<unknown>; floor: () => Promise<unknown> }> = {};
  for (const variant of VARIANTS) {
    // The bytes the environment serves for this request, captured once; the floor returns them.
    const served = await fetch(URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify(paramsFor(variant)),
    });
    const c: Canned = {
      status: served.status,
      contentType: served.headers.get('content-type') ?? '',
      body: await served.text(),
    };
    expect(c.status).toBe(200);
    canned[variant.id] = c;
    const floor = new OpenAI({
      apiKey: API_KEY,
      maxRetries: 0,
      fetch: async () => new Response(c.body, { status: 200, headers: { 'content-type': c.contentType } }),
    });

    const summary = await summarize(environment, variant);
    expect(await summarize(floor, variant)).toEqual(summary);
    summaries[variant.id] = summary;
    calls[variant.id] = { environment: makeCall(environment, variant), floor: makeCall(floor, variant) };
  }

  // Every variant warms up before any is timed, so the first one measured is not the coldest.
  for (const variant of VARIANTS)
    await measure(calls[variant.id], { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
  const samples: Record<string, { environment: number[]; floor: number[] }> = {};
  const cpu: Record<string, { environment: number[]; floor: number[] }> = {};
  for (const variant of VARIANTS) {
    const m = await measure(calls[variant.id], plan);
    samples[variant.id] = m.wall;
    cpu[variant.id] = m.cpu;
  }
  expect(understudy.model.unmatched).toHaveLength(0);

  const result = { plan, canned, summaries, samples, cpu, modelCalls: understudy.model.calls.length };
  if (out) writeFileSync(out, JSON.stringify(result));
}, 600_000);
