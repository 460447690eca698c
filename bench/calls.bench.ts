/**
 * Runs inside a real Jest sandbox under jest-understudy's environment (bench/jest.bench.config.ts),
 * started by `npm run bench`. Times the official SDKs (openai: Chat Completions and Responses,
 * @anthropic-ai/sdk: Messages, @google/genai: generateContentStream) replaying the same canned
 * replies through the environment and through the in-process floor (the SDK given a custom `fetch`
 * that returns the bytes the environment served for that request), and writes the raw samples as
 * JSON to $UNDERSTUDY_BENCH_OUT. It asserts that every target returns the same reply, never on time.
 */
import { writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import {
  createClient,
  DEFAULT_PLAN,
  type Fetch,
  makeCall,
  measure,
  PROTOCOLS,
  summarize,
  understudyFixtures,
  VARIANTS,
} from './driver.cjs';

interface Canned {
  status: number;
  contentType: string;
  url: string;
  body: string;
}

const out = process.env.UNDERSTUDY_BENCH_OUT;
const plan = process.env.UNDERSTUDY_BENCH_PLAN ? JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN) : DEFAULT_PLAN;
// The sandbox's SDK classes (loaded through Jest's module registry, as a test's would be).
const sdks = { OpenAI, Anthropic, GoogleGenAI };

it('replays the same calls through the environment and the in-process floor', async () => {
  understudy.model.use(understudyFixtures());

  const canned: Record<string, Canned> = {};
  const summaries: Record<string, unknown> = {};
  const calls: Record<string, { environment: () => Promise<unknown>; floor: () => Promise<unknown> }> = {};
  for (const variant of VARIANTS) {
    // SDK client on the sandbox's global fetch: the environment's.
    const environment = createClient(variant.protocol, sdks);
    // The bytes the environment serves for this SDK request, captured once by a client whose fetch
    // passes the request to the environment's fetch and keeps the response; the floor returns them.
    let captured: Canned | undefined;
    const tee: Fetch = async (input, init) => {
      const served = await fetch(input, init);
      const body = await served.text();
      const contentType = served.headers.get('content-type') ?? '';
      captured = { status: served.status, contentType, url: String(input), body };
      return new Response(body, { status: served.status, headers: { 'content-type': contentType } });
    };
    const summary = await summarize(createClient(variant.protocol, sdks, { fetch: tee }), variant);
    const c = captured as Canned | undefined;
    if (!c) throw new Error(`${variant.id}: the SDK made no request`);
    expect(c.status).toBe(200);
    canned[variant.id] = c;
    const floor = createClient(variant.protocol, sdks, {
      fetch: async () => new Response(c.body, { status: 200, headers: { 'content-type': c.contentType } }),
    });

    expect(summary.toolCalls.length + (summary.content === null ? 0 : 1)).toBeGreaterThan(0);
    expect(await summarize(environment, variant)).toEqual(summary);
    // Served by this protocol's codec, from the fixture (not by a fallback).
    const call = understudy.model.calls.at(-1);
    expect([call?.protocol, call?.streamed, call?.unmatched]).toEqual([
      PROTOCOLS[variant.protocol].codec,
      variant.stream,
      false,
    ]);
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
