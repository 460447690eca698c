/**
 * How much of a streamed answer reaches the client (src/sandbox/wire.ts): the plan says at once
 * what its shaping keeps back (truncation, a dropped connection, a corrupted event, a mid-stream
 * error), and the body tells when the client stops taking events before the end, however it
 * reads: a reader that cancels or lets go, an iterator it leaves, a pipe, an aborted request.
 */
import { describe, expect, it } from '@jest/globals';
import { createClock } from '../../../../src/clock';
import type { CutReason } from '../../../../src/model/call';
import type { WireStream } from '../../../../src/providers/codec';
import {
  asResponse,
  type StreamPlan,
  streamAnswer,
  undelivered,
  type WireAnswer,
} from '../../../../src/sandbox/wire';

const EVENTS = Array.from({ length: 8 }, (_, i) => `data: {"i":${i}}\n\n`);
const wire = (): WireStream => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  events: [...EVENTS],
});
const clock = createClock(1);

function planned(
  shaping: Parameters<typeof streamAnswer>[1] = {},
  signal?: AbortSignal,
  endsInError = false,
) {
  const cuts: Array<[number, CutReason]> = [];
  const answer = streamAnswer(
    wire(),
    shaping,
    clock,
    { signal },
    (n, why) => cuts.push([n, why]),
    endsInError,
  );
  return { answer, cuts, plan: (answer as Extract<WireAnswer, { kind: 'stream' }>).plan as StreamPlan };
}

async function readN(body: ReadableStream<Uint8Array>, n: number) {
  const reader = body.getReader();
  for (let i = 0; i < n; i++) await reader.read();
  return reader;
}

describe('what the plan keeps back', () => {
  it.each([
    ['nothing: no cut is told', {}, false, []],
    ['truncateAfterChunks', { truncateAfterChunks: 3 }, false, [[3, 'truncated']]],
    ['truncateAfterChunks past the end: nothing', { truncateAfterChunks: 20 }, false, []],
    ['disconnect: half, then the connection drops', { disconnect: true }, false, [[4, 'disconnected']]],
    [
      'disconnect after every event: still dropped',
      { disconnect: true, truncateAfterChunks: 8 },
      false,
      [[8, 'disconnected']],
    ],
    ['disconnectAfterMs', { chunkDelay: 10, disconnectAfterMs: 25 }, false, [[3, 'disconnected']]],
    ['malformed: nothing is read past the damaged event', { malformed: 2 }, false, [[2, 'malformed']]],
    [
      'malformed past the truncation: truncated',
      { malformed: 5, truncateAfterChunks: 3 },
      false,
      [[3, 'truncated']],
    ],
    ['a mid-stream error: every event but the error', {}, true, [[7, 'stream_error']]],
    [
      'a mid-stream error cut short before its error event',
      { truncateAfterChunks: 4 },
      true,
      [[4, 'truncated']],
    ],
  ] as const)('%s', (_, shaping, endsInError, expected) => {
    expect(planned(shaping, undefined, endsInError).cuts).toEqual(expected);
  });
});

describe('a client that stops taking events', () => {
  it('a reader that cancels after two events took two', async () => {
    const { answer, cuts } = planned();
    await (await readN(asResponse(answer).body!, 2)).cancel();
    expect(cuts).toEqual([[2, 'aborted']]);
  });

  it('a reader that lets go after three events took three', async () => {
    const { answer, cuts } = planned();
    (await readN(asResponse(answer).body!, 3)).releaseLock();
    expect(cuts).toEqual([[3, 'aborted']]);
  });

  it('an iterator left after two events (for await … break) took two', async () => {
    const { answer, cuts } = planned();
    let n = 0;
    for await (const _ of asResponse(answer).body!) if (++n === 2) break;
    expect(cuts).toEqual([[2, 'aborted']]);
  });

  it('a body cancelled before any read took nothing', async () => {
    const { answer, cuts } = planned();
    await asResponse(answer).body!.cancel();
    expect(cuts).toEqual([[0, 'aborted']]);
  });

  it('an aborted request after two events took two, paced or not', async () => {
    for (const shaping of [{}, { chunkDelay: 1 }]) {
      const controller = new AbortController();
      const { answer, cuts } = planned(shaping, controller.signal);
      const reader = await readN(asResponse(answer).body!, 2);
      controller.abort();
      await expect(reader.read()).rejects.toThrow();
      expect(cuts).toEqual([[2, 'aborted']]);
    }
  });

  it('a paced reader that cancels after two events took two', async () => {
    const { answer, cuts } = planned({ chunkDelay: 1 });
    await (await readN(asResponse(answer).body!, 2)).cancel();
    expect(cuts).toEqual([[2, 'aborted']]);
  });

  it('a pipe counts what it passed on', async () => {
    const { answer, cuts } = planned();
    const reader = asResponse(answer).body!.pipeThrough(new TextDecoderStream()).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    // The cancel reaches the body through the pipe a few ticks later.
    for (let tick = 0; tick < 20 && cuts.length === 0; tick++) await new Promise((r) => setImmediate(r));
    expect(cuts).toHaveLength(1);
    const [[n, why]] = cuts;
    expect(why).toBe('aborted');
    // What the pipe took ahead of its reader is counted, never more than it took.
    expect(n).toBeGreaterThanOrEqual(2);
    expect(n).toBeLessThan(EVENTS.length);
  });

  it('a client that reads everything, then lets go or aborts, took everything', async () => {
    const controller = new AbortController();
    const { answer, cuts } = planned({}, controller.signal);
    const body = asResponse(answer).body!;
    const reader = body.getReader();
    for (;;) if ((await reader.read()).done) break;
    reader.releaseLock();
    controller.abort();
    expect(cuts).toEqual([]);
    const paced = planned({ chunkDelay: 1 });
    expect(await asResponse(paced.answer).text()).toBe(EVENTS.join(''));
    expect(paced.cuts).toEqual([]);
  });

  it('a client that stops before a planned cut makes it shorter; after it, changes nothing', async () => {
    const early = planned({ truncateAfterChunks: 5 });
    await (await readN(asResponse(early.answer).body!, 2)).cancel();
    expect(early.cuts).toEqual([
      [5, 'truncated'],
      [2, 'aborted'],
    ]);
    const late = planned({ malformed: 2 });
    await (await readN(asResponse(late.answer).body!, 4)).cancel();
    expect(late.cuts).toEqual([[2, 'malformed']]);
  });

  it('a client that gives up before it takes the answer got nothing of it', () => {
    const { answer, cuts } = planned();
    expect(undelivered(answer, 'gone')).toBe('gone');
    expect(cuts).toEqual([[0, 'aborted']]);
  });
});
