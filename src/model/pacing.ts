/**
 * aimock's pacing fields on the injectable clock: `streamingProfile` (time to first token,
 * chunks per second, jitter), `recordedTimings` (the delays a recording measured) and
 * `replaySpeed`, and `disconnectAfterMs`. Jitter is seeded, so a replay paces the same.
 */
import type { Fixture } from '../fixtures/types';
import { seededRandom } from '../random';

export interface Pacing {
  /** Milliseconds before the response (the first chunk). */
  latency?: number;
  /** Milliseconds before chunk `i` (from 1) of a stream of `count` chunks. */
  delayBefore?: (i: number, count: number) => number;
  /** Milliseconds after the request when the connection drops. */
  disconnectAfterMs?: number;
}

export function pacingOf(fixture: Fixture): Pacing | undefined {
  const { streamingProfile: profile, recordedTimings: recorded, disconnectAfterMs } = fixture;
  const speed = fixture.replaySpeed ?? 1;
  const scaled = (ms: number) => Math.max(0, ms) / speed;
  const pacing: Pacing = disconnectAfterMs !== undefined ? { disconnectAfterMs } : {};
  if (profile) {
    if (profile.ttft !== undefined) pacing.latency = scaled(profile.ttft);
    const { tps, jitter = 0 } = profile;
    if (tps !== undefined && tps > 0)
      pacing.delayBefore = (i) => scaled((1000 / tps) * (1 + (seededRandom(i)() * 2 - 1) * jitter));
  } else if (recorded) {
    if (recorded.ttftMs !== undefined) pacing.latency = scaled(recorded.ttftMs);
    const delays = recorded.interChunkDelaysMs ?? [];
    const average = delays.length > 0 ? delays.reduce((a, b) => a + b, 0) / delays.length : undefined;
    const total = recorded.totalDurationMs;
    pacing.delayBefore = (i, count) => {
      if (i - 1 < delays.length) return scaled(delays[i - 1]);
      if (average !== undefined) return scaled(average);
      if (total !== undefined && count > 1) return scaled((total - (recorded.ttftMs ?? 0)) / (count - 1));
      return 0;
    };
  }
  return Object.keys(pacing).length > 0 ? pacing : undefined;
}
