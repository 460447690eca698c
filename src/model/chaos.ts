import type { FixtureChaos } from '../fixtures/types';
import { seededRandom } from '../random';

export type ChaosFault = 'drop' | 'malformed' | 'rate_limit' | 'disconnect' | 'stream_error';

/**
 * Draws the faults in aimock's order (drop → malformed → rateLimit → disconnect), then the
 * mid-stream error aimock does not have, the first hit winning. One draw per rate that is set, so adding a rate of 0 changes nothing.
 */
export function drawFault(chaos: FixtureChaos, random: () => number): ChaosFault | undefined {
  const order: Array<[number | undefined, ChaosFault]> = [
    [chaos.dropRate, 'drop'],
    [chaos.malformedRate, 'malformed'],
    [chaos.rateLimitRate, 'rate_limit'],
    [chaos.disconnectRate, 'disconnect'],
    [chaos.streamErrorRate, 'stream_error'],
  ];
  for (const [rate, fault] of order) {
    if (rate === undefined || rate <= 0) continue;
    if (random() < rate) return fault;
  }
  return undefined;
}

/** One seeded stream per chaos seed, restarted for every test so each test replays exactly. */
export class ChaosDice {
  private readonly streams = new Map<number, () => number>();

  constructor(private readonly defaultSeed: number) {}

  draw(chaos: FixtureChaos): ChaosFault | undefined {
    const seed = chaos.seed ?? this.defaultSeed;
    let random = this.streams.get(seed);
    if (!random) {
      random = seededRandom(seed);
      this.streams.set(seed, random);
    }
    return drawFault(chaos, random);
  }

  reset(): void {
    this.streams.clear();
  }
}
