/** Wire responses: a codec's output as a `Response`, shaped (chunks, pacing, truncation, corruption) as a fixture asks. */
import { abortReason, type Clock } from '../clock';
import type { StreamShaping } from '../fixtures/types';
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
 * A body that hands out one SSE event per read, as a network would, paced by the
 * injectable clock; it can stop early (`truncateAfterChunks`), corrupt a chunk
 * (`malformed`) or fail like a dropped connection (`disconnect`).
 */
export function toStreamResponse(
  wire: WireStream,
  shaping: StreamShaping,
  clock: Clock,
  signal?: AbortSignal,
): Response {
  const { events } = wire;
  const limit =
    shaping.truncateAfterChunks ?? (shaping.disconnect ? Math.ceil(events.length / 2) : events.length);
  const bad = malformedIndex(shaping, events.length);
  const delay = shaping.chunkDelay ?? 0;
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // As with a real connection, aborting the request errors the body mid-stream.
      signal?.addEventListener('abort', () => controller.error(abortReason(signal)), { once: true });
    },
    async pull(controller) {
      if (signal?.aborted) return;
      if (i < limit && i < events.length) {
        if (i > 0 && delay > 0) await clock.sleep(delay, signal).catch(() => undefined);
        if (signal?.aborted) return;
        controller.enqueue(encoder.encode(i === bad ? corrupt(events[i]) : events[i]));
        i++;
        return;
      }
      if (shaping.disconnect)
        controller.error(new TypeError('terminated: the mock model dropped the connection'));
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
