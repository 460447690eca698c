import type { StreamShaping } from '../fixtures/types';
import type { WireResponse, WireStream } from '../providers/codec';

const encoder = new TextEncoder();

export function toResponse(wire: WireResponse): Response {
  return new Response(wire.body, { status: wire.status, headers: wire.headers });
}

/**
 * A body that hands out one SSE event per read, as a network would, and can stop
 * early (`truncateAfterChunks`) or fail like a dropped connection (`disconnect`).
 */
export function toStreamResponse(wire: WireStream, shaping: StreamShaping): Response {
  const { events } = wire;
  const limit =
    shaping.truncateAfterChunks ?? (shaping.disconnect ? Math.ceil(events.length / 2) : events.length);
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < limit && i < events.length) {
        controller.enqueue(encoder.encode(events[i++]));
        return;
      }
      if (shaping.disconnect)
        controller.error(new TypeError('terminated: the mock model dropped the connection'));
      else controller.close();
    },
  });
  return new Response(body, { status: wire.status, headers: wire.headers });
}
