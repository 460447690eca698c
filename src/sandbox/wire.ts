/**
 * Wire answers: a codec's output, shaped (chunks, pacing, truncation, corruption) as a fixture
 * asks, in a form each transport writes its own way: a WHATWG `Response` (fetch, msw, a browser
 * route: `asResponse`), or straight onto a node:http response (the served port: ../node-http.ts).
 */
import { abortReason, type Clock } from '../clock';
import type { StreamShaping } from '../fixtures/types';
import type { Pacing } from '../model/pacing';
import type { WireResponse, WireStream } from '../providers/codec';

/**
 * The events of a streamed answer, as they go out: `count` of them, each after its `delay`;
 * then the stream ends, or (`fails`) the connection drops.
 */
export interface StreamPlan {
  readonly count: number;
  event(at: number): string | Uint8Array;
  /** ms to wait before event `at` (0 for the first). */
  delay(at: number): number;
  /** No event waits: they can all go out at once. */
  readonly unpaced: boolean;
  readonly fails: boolean;
  readonly clock: Clock;
  /**
   * The request's signal (the client went away), made on first call. A method, not a getter: V8
   * keeps the accessor of an object literal made per request alive until the next full
   * collection, with everything its closure holds (docs/benchmarks.md, "Per-request getters").
   */
  signal(): AbortSignal | undefined;
}

/** What goes back for one model call. */
export type WireAnswer =
  | { kind: 'plain'; status: number; headers: Record<string, string>; body: string }
  | { kind: 'stream'; status: number; headers: Record<string, string>; plan: StreamPlan }
  /** An answer from the real provider (record and live modes), as its fetch returned it. */
  | { kind: 'response'; response: Response }
  /** The connection fails before any response (each transport says so its own way). */
  | { kind: 'drop' };

const encoder = new TextEncoder();

/** A corrupted chunk: the same SSE frame (its `event:` line kept, so named-event SDKs read it) with cut-off JSON data. */
function corrupt(event: string): string {
  const named = event.startsWith('event:') ? event.slice(0, event.indexOf('\n') + 1) : '';
  return `${named}data: {"malformed":\n\n`;
}

/** A plain answer (`malformed`: its body cut in half). */
export function plainAnswer(wire: WireResponse, shaping: StreamShaping = {}): WireAnswer {
  const body = shaping.malformed
    ? wire.body.slice(0, Math.max(1, Math.floor(wire.body.length / 2)))
    : wire.body;
  return { kind: 'plain', status: wire.status, headers: wire.headers, body };
}

function malformedIndex(shaping: StreamShaping, events: number): number {
  if (shaping.malformed === true) return Math.min(1, events - 1);
  if (typeof shaping.malformed === 'number') return shaping.malformed;
  return -1;
}

/**
 * With `disconnectAfterMs`: how many chunks are due (on the clock, from the request) before the
 * connection drops; undefined when the stream is over by then (it ends as usual).
 */
function droppedAt(shaping: Pacing, count: number, delayOf: (at: number) => number): number | undefined {
  if (shaping.disconnectAfterMs === undefined) return undefined;
  let due = shaping.latency ?? 0;
  for (let at = 0; at < count; at++) {
    if (at > 0) due += delayOf(at);
    if (due > shaping.disconnectAfterMs) return at;
  }
  return undefined;
}

/** Whether a plain reply, due at `latency`, comes after the connection dropped. */
export function droppedBeforeReply(shaping: Pacing): boolean {
  return shaping.disconnectAfterMs !== undefined && (shaping.latency ?? 0) > shaping.disconnectAfterMs;
}

/**
 * A streamed answer, one SSE event at a time as a network would send them, paced by the
 * injectable clock; it can stop early (`truncateAfterChunks`), corrupt a chunk (`malformed`)
 * or fail like a dropped connection (`disconnect`, `disconnectAfterMs`).
 */
export function streamAnswer(
  wire: WireStream,
  shaping: StreamShaping & Pacing,
  clock: Clock,
  request?: { readonly signal: AbortSignal | undefined },
): WireAnswer {
  const { events } = wire;
  const delayOf = (at: number) => shaping.delayBefore?.(at, events.length) ?? shaping.chunkDelay ?? 0;
  const dropped = droppedAt(shaping, events.length, delayOf);
  const fails = shaping.disconnect === true || dropped !== undefined;
  const limit =
    dropped ??
    shaping.truncateAfterChunks ??
    (shaping.disconnect ? Math.ceil(events.length / 2) : events.length);
  const bad = malformedIndex(shaping, events.length);
  let unpaced = true;
  for (let at = 1; unpaced && at < events.length; at++) if (delayOf(at) > 0) unpaced = false;
  const plan: StreamPlan = {
    count: Math.min(limit, events.length),
    event: (at) => (at === bad ? (wire.corrupt ?? corrupt)(events[at] as string) : events[at]),
    delay: (at) => (at > 0 ? delayOf(at) : 0),
    unpaced,
    fails,
    clock,
    signal: () => request?.signal,
  };
  return { kind: 'stream', status: wire.status, headers: wire.headers, plan };
}

/** A body that hands out one event per read, paced; aborting the request errors it mid-stream. */
function streamBody(plan: StreamPlan): ReadableStream<Uint8Array> {
  const signal = plan.signal();
  const chunk = (at: number): Uint8Array => {
    const event = plan.event(at);
    return typeof event === 'string' ? encoder.encode(event) : event;
  };
  // Nothing to wait for between events and no dropped connection: every event is queued at
  // once, still one chunk per read, without a pull (and its promise) per event.
  const queued = plan.unpaced && !plan.fails;
  let i = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // As with a real connection, aborting the request errors the body mid-stream.
      signal?.addEventListener('abort', () => controller.error(abortReason(signal)), { once: true });
      if (!queued || signal?.aborted) return;
      for (; i < plan.count; i++) controller.enqueue(chunk(i));
      controller.close();
    },
    async pull(controller) {
      if (signal?.aborted) return;
      if (i < plan.count) {
        const delay = plan.delay(i);
        if (delay > 0) await plan.clock.sleep(delay, signal).catch(() => undefined);
        if (signal?.aborted) return;
        controller.enqueue(chunk(i));
        i++;
        return;
      }
      if (plan.fails) controller.error(new TypeError('terminated: the mock model dropped the connection'));
      else controller.close();
    },
  });
}

/**
 * The answer as a WHATWG Response (`Response.error()` for a dropped connection; fetch's own
 * transport says so its own way: see `connectionDropped`).
 */
export function asResponse(answer: WireAnswer): Response {
  switch (answer.kind) {
    case 'plain':
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    case 'stream':
      return new Response(streamBody(answer.plan), { status: answer.status, headers: answer.headers });
    case 'response':
      return answer.response;
    case 'drop':
      return Response.error();
  }
}

/** How undici reports a connection that failed before any response. */
export function connectionDropped(): TypeError {
  return new TypeError('fetch failed', {
    cause: new Error('other side closed (the mock model dropped the request)'),
  });
}
