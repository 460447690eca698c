/**
 * Runs inside a real Jest sandbox under jest-understudy's environment (bench/jest.bench.config.ts,
 * project `sockets`), started by bench/sockets.mjs. Times one model turn over each socket protocol
 * (Responses WebSocket mode, OpenAI Realtime, Gemini Live) against three targets, alternating call
 * by call: the environment answering in process; the floor, a `ws` server on 127.0.0.1 in this
 * process sending back the frames the environment served for that turn (captured once); and
 * aimock's WebSocket mocks, started in this process with the same fixtures. Writes the raw
 * samples as JSON to $UNDERSTUDY_BENCH_OUT. It asserts that every target gives the same reply,
 * never on time.
 */
import { writeFileSync } from 'node:fs';
import { LLMock } from '@copilotkit/aimock';
import { GoogleGenAI } from '@google/genai';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import * as ws from 'ws';
import {
  CODECS,
  captureFrames,
  clientsFor,
  differences,
  FIXTURES,
  measureTurns,
  openSession,
  type ResponseSummary,
  ROWS,
  replayServer,
  summarize,
  type TargetClients,
  type TurnSamples,
} from './sockets-driver.cjs';

const out = process.env.UNDERSTUDY_BENCH_OUT;
const plan = JSON.parse(process.env.UNDERSTUDY_BENCH_PLAN ?? '{"prewarm":200,"warmup":50,"calls":100}');
// UNDERSTUDY_BENCH_SOCKETS_ROWS (row ids, comma-separated) runs only those, e.g. for a profile.
const only = process.env.UNDERSTUDY_BENCH_SOCKETS_ROWS?.split(',');
const rows = only ? ROWS.filter((r) => only.includes(r.id)) : ROWS;
// The sandbox's SDK classes and `ws` (loaded through Jest's module registry, as a test's would be).
const sdks = { OpenAI, ResponsesWS, GoogleGenAI, ws };

/**
 * Where aimock's reply is known to differ from the API's (and the environment's): printed with the
 * figures, left out of the equality check. Any other difference fails the bench.
 */
const KNOWN: Record<string, Record<string, string>> = {
  'live tool round trip': {
    '0.end':
      'aimock sends a turnComplete right after the toolCall; the Live API (and the environment) send the toolCall alone and end the turn after the answer',
  },
};

it('times one turn per socket protocol: environment, floor, aimock', async () => {
  understudy.model.use(FIXTURES);
  const mock = new LLMock({ port: 0, host: '127.0.0.1', logLevel: 'silent' });
  mock.addFixturesFromJSON(FIXTURES as never);
  await mock.start();
  const floors: Array<{ close(): Promise<void> }> = [];
  try {
    const environment = clientsFor(sdks);
    const aimock = clientsFor(sdks, mock.url, { livePrefix: '/openai' });
    const targets: Record<string, Record<'environment' | 'floor' | 'aimock', TargetClients>> = {};
    const summaries: Record<string, ResponseSummary[]> = {};
    const frames: Record<string, { frames: number; bytes: number }> = {};
    const known: Record<string, Array<{ path: string; expected: unknown; got: unknown; why: string }>> = {};
    for (const row of rows) {
      // The environment's frames for one session of this row, and the reply.
      const before = understudy.model.calls.length;
      let summary: ResponseSummary[] = [];
      let mark = 0;
      const log = await captureFrames(ws, async (log) => {
        const session = await openSession(row, sdks, environment);
        mark = log.sent;
        summary = await session.turn(row);
        await session.close();
      });
      const turn = log.frames.filter((f) => f.after > mark);
      frames[row.id] = { frames: turn.length, bytes: turn.reduce((n, f) => n + f.data.length, 0) };
      expect(summary.length).toBe(row.trip && row.protocol === 'realtime' ? 2 : 1);
      expect(summary.every((r) => r.text !== null || r.toolCalls.length > 0)).toBe(true);
      if (row.trip) expect(summary.flatMap((r) => r.toolCalls).length).toBeGreaterThan(0);
      // Answered by this protocol's codec, from the fixtures (not by a fallback).
      const calls = understudy.model.calls.slice(before);
      expect(calls.map((c) => [c.protocol, c.unmatched])).toEqual(
        (row.trip ? [1, 2] : [1]).map(() => [CODECS[row.protocol], false]),
      );
      summaries[row.id] = summary;

      const floor = await replayServer(ws, log);
      floors.push(floor);
      const rowTargets = { environment, floor: clientsFor(sdks, floor.origin), aimock };
      // Every target gives the environment's reply; aimock's known differences are noted.
      expect(await summarize(row, sdks, environment)).toEqual(summary);
      expect(await summarize(row, sdks, rowTargets.floor)).toEqual(summary);
      const found = differences(summary, await summarize(row, sdks, aimock));
      const unknown = found.filter((d) => !KNOWN[row.id]?.[d.path]);
      expect(unknown).toEqual([]);
      if (found.length > 0) known[row.id] = found.map((d) => ({ ...d, why: KNOWN[row.id][d.path] }));
      targets[row.id] = rowTargets;
    }

    // Every row warms up on every target before any is timed.
    for (const row of rows)
      await measureTurns(row, sdks, targets[row.id], { warmup: plan.prewarm ?? plan.warmup, calls: 0 });
    const samples: Record<string, Record<string, TurnSamples>> = {};
    for (const row of rows) samples[row.id] = await measureTurns(row, sdks, targets[row.id], plan);
    expect(understudy.model.unmatched).toHaveLength(0);

    if (out)
      writeFileSync(
        out,
        JSON.stringify({
          plan,
          summaries,
          frames,
          known,
          samples,
          modelCalls: understudy.model.calls.length,
        }),
      );
  } finally {
    for (const floor of floors) await floor.close();
    await mock.stop();
  }
}, 600_000);
