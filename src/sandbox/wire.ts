/** Wire responses: a codec's output as a `Response`, shaped (chunks, pacing, truncation, corruption) as a fixture asks. */
import { abortReason, type Clock } from '../clock';
import type { StreamShaping } from '../fixtures/types';
import type { Pacing } from '../model/pacing';
import type { WireResponse, WireStream } from '../providers/codec';

const encoder = new TextEncoder();

/** A corrupted chunk: the same SSE frame (its `event:` line kept, so named-event SDKs read it) with cut-off JSON data. */
function corrupt(event: string): string {
  const named = event.startsWith('event:') ? event.slice(0, event.indexOf('\n') + 1) : '';
  return `${named}data: {"malformed":\n\n`;
}

export function toResponse(wire: WireResponse, shaping: StreamShaping = {}): Response {
  const body = shaping.malformed
    ? wire.body.slice(0, Math.max(1, Math.floor(wire.body.length / 2)))
    : wire.body;
  return new Response(body, { status: wire.status, headers: wire.headers });
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
 * A body that hands out one SSE event per read, as a network would, paced by the
 * injectable clock; it can stop early (`truncateAfterChunks`), corrupt a chunk
 * (`malformed`) or fail like a dropped connection (`disconnect`).
 */
export function toStreamResponse(
  wire: WireStream,
  shaping: StreamShaping & Pacing,
  clock: Clock,
  signal?: AbortSignal,
): Response {
  const { events } = wire;
  const delayOf = (at: number) => shaping.delayBefore?.(at, events.length) ?? shaping.chunkDelay ?? 0;
  const dropped = droppedAt(shaping, events.length, delayOf);
  const disconnect = shaping.disconnect || dropped !== undefined;
  const limit =
    dropped ??
    shaping.truncateAfterChunks ??
    (shaping.disconnect ? Math.ceil(events.length / 2) : events.length);
  const bad = malformedIndex(shaping, events.length);
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // As with a real connection, aborting the request errors the body mid-stream.
      signal?.addEventListener('abort', () => controller.error(abortReason(signal)), { once: true });
    },
    async pull(controller) {
      if (signal?.aborted) return;
      if (i < limit && i < events.length) {
        const delay = i > 0 ? delayOf(i) : 0;
        if (delay > 0) await clock.sleep(delay, signal).catch(() => undefined);
        if (signal?.aborted) return;
        const event = i === bad ? (wire.corrupt ?? corrupt)(events[i] as string) : events[i];
        controller.enqueue(typeof event === 'string' ? encoder.encode(event) : event);
        i++;
        return;
      }
      if (disconnect) controller.error(new TypeError('terminated: the mock model dropped the connection'));
      else controller.close();
    },
  });
  return new Response(body, { status: wire.status, headers: wire.headers });
}

/** How undici reports a connection that failed before any response. */
export function connectionDropped(): TypeError {
  return new TypeError('fetch failed', {
    cause: new Error('other side closed (the mock model dropped the request)'),
  });
}
