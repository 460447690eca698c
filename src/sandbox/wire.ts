/**
 * Wire answers: a codec's output, shaped (chunks, pacing, truncation, corruption) as a fixture
 * asks, in a form each transport writes its own way: a WHATWG `Response` (fetch, msw, a browser
 * route: `asResponse`), or straight onto a node:http response (the served port: ../node-http.ts).
 */
import { abortReason, type Clock } from '../clock';
import type { StreamShaping } from '../fixtures/types';
import type { CutReason, ModelCall } from '../model/call';
import { cutCall } from '../model/delivered';
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
   * collection, with everything its closure holds (bench/NOTES.md, "Per-request getters").
   */
  signal(): AbortSignal | undefined;
  /**
   * The client stopped taking events (it went away, or gave up reading) after `sent` of them,
   * before the plan ended. Writers call it only then: a stream read to its end says nothing.
   */
  stopped(sent: number): void;
  /** How many events reached the client so far, while a writer is at it (set by the writer). */
  progress?: () => number | undefined;
  /** The run ended: an answer still going out is cut where it stands (see `RunRecorder.inflight`). */
  settle(): void;
}

/**
 * Told how much of a streamed reply reached the client whole, when less than all of it did: the
 * first `delivered` events, but for `skipped`, a damaged one the client read past.
 */
export type CutWatcher = (delivered: number, reason: CutReason, skipped?: number) => void;

/** What goes back for one model call. */
export type WireAnswer =
  | {
      kind: 'plain';
      status: number;
      headers: Record<string, string>;
      body: string;
      /** The model call it answers: a client that gives up before taking it received nothing. */
      call?: ModelCall;
    }
  | { kind: 'stream'; status: number; headers: Record<string, string>; plan: StreamPlan }
  /** An answer from the real provider (record and live modes), as its fetch returned it. */
  | { kind: 'response'; response: Response }
  /** The connection fails before any response (each transport says so its own way). */
  | { kind: 'drop' }
  /**
   * A crashed run's answer (./requests.ts): headers, then a body that does not end until `ended`
   * (the file's tests are done), when it fails.
   */
  | { kind: 'stalled'; ended: Promise<void> };

/** Why a stalled answer's body fails when the file's tests are done. */
export const CRASHED_RUN_ENDED =
  "jest-understudy: this request belonged to a run that crashed; the test file's tests are done";
/** The headers of a stalled answer. */
export const STALLED_HEADERS = { 'content-type': 'application/json' };

const encoder = new TextEncoder();

/** A corrupted chunk: the same SSE frame (its `event:` line kept, so named-event SDKs read it) with cut-off JSON data. */
function corrupt(event: string): string {
  const named = event.startsWith('event:') ? event.slice(0, event.indexOf('\n') + 1) : '';
  return `${named}data: {"malformed":\n\n`;
}

/** A plain answer (`malformed`: its body cut in half). */
export function plainAnswer(wire: WireResponse, shaping: StreamShaping = {}, call?: ModelCall): WireAnswer {
  const body = shaping.malformed
    ? wire.body.slice(0, Math.max(1, Math.floor(wire.body.length / 2)))
    : wire.body;
  return { kind: 'plain', status: wire.status, headers: wire.headers, body, call };
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
 * or fail like a dropped connection (`disconnect`, `disconnectAfterMs`). `cut` is told, as the
 * plan is made, how many events will reach the client whole when the shaping (or `endsInError`:
 * the last event is a mid-stream error) keeps some back, and again if the client stops first.
 */
export function streamAnswer(
  wire: WireStream,
  shaping: StreamShaping & Pacing,
  clock: Clock,
  request?: { readonly signal: AbortSignal | undefined },
  cut?: CutWatcher,
  endsInError = false,
): Extract<WireAnswer, { kind: 'stream' }> {
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
  const count = Math.min(limit, events.length);
  // What reaches the client whole: every event the plan sends, unless one is corrupted (an SSE
  // client reads no further; an NDJSON one skips that line) or the last is the error a
  // mid-stream failure ends with.
  let intact = count;
  let skipped: number | undefined;
  let reason: CutReason | undefined = fails
    ? 'disconnected'
    : count < events.length
      ? 'truncated'
      : undefined;
  if (endsInError && count === events.length) {
    intact = count - 1;
    reason = 'stream_error';
  }
  if (bad >= 0 && bad < intact) {
    if (wire.readsPastCorrupt) {
      skipped = bad;
      reason ??= 'malformed';
    } else {
      intact = bad;
      reason = 'malformed';
    }
  }
  if (reason && cut) cut(intact, reason, skipped);
  const plan: StreamPlan = {
    count,
    event: (at) => (at === bad ? (wire.corrupt ?? corrupt)(events[at] as string) : events[at]),
    delay: (at) => (at > 0 ? delayOf(at) : 0),
    unpaced,
    fails,
    clock,
    signal: () => request?.signal,
    stopped: (sent) => {
      if (sent < intact) {
        intact = sent;
        cut?.(sent, 'aborted', skipped !== undefined && skipped < sent ? skipped : undefined);
      }
    },
    settle() {
      const sent = plan.progress?.();
      if (sent !== undefined) plan.stopped(sent);
    },
  };
  return { kind: 'stream', status: wire.status, headers: wire.headers, plan };
}

/** How many events a body queues ahead of its reader: an unpaced body has them all queued already. */
const QUEUED_AHEAD = 0;
/** A paced body: the next event is waited for as soon as the one before it is read. */
const PACED_AHEAD = 1;

/** How many events of a body the client took, told once, when it stops before the end. */
class Delivery {
  /** Events put in the body's queue. */
  handed = 0;
  /** The body ended: every event read (and the connection dropped, for a failing plan). */
  ended = false;
  /** Events a pipe passed on, when one reads the body. */
  piped: number | undefined;
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private told = false;

  constructor(
    private readonly plan: StreamPlan,
    private readonly ahead: number,
  ) {}

  /**
   * The client stopped. `queueKept`: its queue still holds what it left unread (a reader or
   * iterator about to cancel, an abort); else it was dropped already (a cancel that came
   * another way), and only what was surely read counts.
   */
  stop(queueKept: boolean): void {
    const sent = this.taken(queueKept);
    if (sent === undefined) return;
    this.told = true;
    this.plan.stopped(sent);
  }

  /** The events taken so far; undefined once the body ended or a stop was told. */
  taken(queueKept = true): number | undefined {
    const { controller } = this;
    if (this.told || this.ended || !controller) return undefined;
    if (this.piped !== undefined) return this.piped;
    if (!queueKept) return this.ahead === QUEUED_AHEAD ? 0 : Math.max(0, this.handed - this.ahead);
    const size = controller.desiredSize;
    return size === null ? this.handed : this.handed - (this.ahead - size);
  }
}

/**
 * A response body whose reader (or iterator) tells, before it cancels or lets go, how many
 * events the client took: a cancel empties the queue, and with it the count of what was left
 * unread. A pipe reading the body counts what it passes on.
 */
class WireBody extends ReadableStream<Uint8Array> {
  constructor(
    source: UnderlyingDefaultSource<Uint8Array>,
    private readonly delivery: Delivery,
    ahead: number,
  ) {
    super(source, { highWaterMark: ahead });
  }

  override cancel(reason?: unknown): Promise<void> {
    if (!this.locked) this.delivery.stop(true);
    return super.cancel(reason);
  }

  override getReader(...args: any[]): any {
    const reader = (super.getReader as (...a: any[]) => ReadableStreamDefaultReader<Uint8Array>)(...args);
    const { cancel, releaseLock } = reader;
    reader.cancel = (reason?: unknown) => {
      this.delivery.stop(true);
      return cancel.call(reader, reason);
    };
    reader.releaseLock = () => {
      this.delivery.stop(true);
      releaseLock.call(reader);
    };
    return reader;
  }

  override values(options?: { preventCancel?: boolean }): any {
    const iterator = super.values(options);
    const end = iterator.return;
    iterator.return = (value?: any) => {
      this.delivery.stop(true);
      return end ? end.call(iterator, value) : Promise.resolve({ done: true as const, value });
    };
    return iterator;
  }

  override [Symbol.asyncIterator](options?: { preventCancel?: boolean }): any {
    return this.values(options);
  }

  override pipeThrough<T>(
    pair: ReadableWritablePair<T, Uint8Array>,
    options?: StreamPipeOptions,
  ): ReadableStream<T> {
    return super.pipeThrough(this.counter(), options).pipeThrough(pair, options);
  }

  override pipeTo(destination: WritableStream<Uint8Array>, options?: StreamPipeOptions): Promise<void> {
    return super.pipeThrough(this.counter(), options).pipeTo(destination, options);
  }

  private counter(): TransformStream<Uint8Array, Uint8Array> {
    const { delivery } = this;
    delivery.piped ??= 0;
    return new TransformStream({
      transform(chunk, controller) {
        delivery.piped = (delivery.piped ?? 0) + 1;
        controller.enqueue(chunk);
      },
    });
  }
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
  const ahead = queued ? QUEUED_AHEAD : PACED_AHEAD;
  const delivery = new Delivery(plan, ahead);
  plan.progress = () => delivery.taken();
  return new WireBody(
    {
      start(controller) {
        delivery.controller = controller;
        // As with a real connection, aborting the request errors the body mid-stream.
        signal?.addEventListener(
          'abort',
          () => {
            delivery.stop(true);
            controller.error(abortReason(signal));
          },
          { once: true },
        );
        if (!queued || signal?.aborted) return;
        let at = 0;
        for (; at < plan.count; at++) controller.enqueue(chunk(at));
        delivery.handed = at;
        controller.close();
      },
      async pull(controller) {
        if (signal?.aborted) return;
        const at = delivery.handed;
        if (at < plan.count) {
          const delay = plan.delay(at);
          if (delay > 0) await plan.clock.sleep(delay, signal).catch(() => undefined);
          if (signal?.aborted) return;
          controller.enqueue(chunk(at));
          delivery.handed++;
          return;
        }
        delivery.ended = true;
        if (plan.fails) controller.error(new TypeError('terminated: the mock model dropped the connection'));
        else controller.close();
      },
      cancel: () => delivery.stop(false),
    },
    delivery,
    ahead,
  );
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
    case 'stalled': {
      const body = new ReadableStream({
        start: (controller) => {
          void answer.ended.then(() => controller.error(new Error(CRASHED_RUN_ENDED)));
        },
      });
      return new Response(body, { status: 200, headers: STALLED_HEADERS });
    }
  }
}

/**
 * The client gave up before it took the answer: nothing of it reached the client, whatever the
 * call's evidence said. Returns `reason`, to throw.
 */
export function undelivered(answer: WireAnswer, reason: unknown): unknown {
  if (answer.kind === 'stream') answer.plan.stopped(0);
  else if (answer.kind === 'plain' && answer.call)
    cutCall(
      answer.call,
      { reason: 'aborted', delivered: 0, ...(answer.call.response && { of: 1 }) },
      undefined,
    );
  return reason;
}

/** How undici reports a connection that failed before any response. */
export function connectionDropped(): TypeError {
  return new TypeError('fetch failed', {
    cause: new Error('other side closed (the mock model dropped the request)'),
  });
}
