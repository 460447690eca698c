/**
 * The world clock: milliseconds since the world (re)started. It never follows the wall
 * clock (a test must not depend on how fast the machine is). It moves:
 * - with Jest's modern fake timers, while they are on: `jest.advanceTimersByTime(60_000)`
 *   moves it 60 s. It reads the fake clock's own elapsed time (what advancing timers adds,
 *   not `setSystemTime` jumps), counted from when the fake clock was installed (or from the
 *   world's reset, if that came later). Time a fake clock was advanced by is kept when it is
 *   uninstalled, replaced by another `jest.useFakeTimers()` or reset (the environment has
 *   the world clock read it just before: `detach`);
 * - by `advance(ms)`;
 * - by simulated latency (latency and timeout faults) when fake timers do not carry it.
 * Scheduled events fire when it passes them; the engine settles them before every call
 * and every read, so their effects are in place whenever anything looks.
 */
import { isFakeTimers } from '../clock';

/** The @sinonjs/fake-timers clock Jest's modern fake timers hang on `setTimeout.clock`. */
interface FakeClock {
  now: number;
  hrtime?: () => [number, number];
}

function fakeClock(): FakeClock | undefined {
  if (!isFakeTimers()) return undefined;
  return (globalThis.setTimeout as unknown as { clock: FakeClock }).clock;
}

/** Milliseconds the fake clock has been advanced since it was installed. */
function elapsedOf(clock: FakeClock, fallbackOrigin: number): number {
  if (typeof clock.hrtime === 'function') {
    const [s, ns] = clock.hrtime();
    return s * 1000 + ns / 1e6;
  }
  return clock.now - fallbackOrigin;
}

export class WorldClock {
  /** World time when the current fake clock's `anchor` was taken. */
  private base = 0;
  private last = 0;
  private fake: FakeClock | undefined;
  /** The fake clock's elapsed time that corresponds to `base`. */
  private anchor = 0;
  /** The fake clock's elapsed time at our last look (it only goes back when the clock is reset). */
  private seen = 0;
  /** For fake clocks without hrtime: their `now` when first seen. */
  private origin = 0;

  now(): number {
    const clock = fakeClock();
    if (this.fake && clock !== this.fake) {
      // The clock we followed was uninstalled or replaced: it still reads what it was advanced by.
      this.follow(this.fake);
      this.fake = undefined;
      this.base = this.last;
    }
    if (clock) {
      if (clock !== this.fake) {
        // A fake clock we have not seen: it was installed after our last look, at elapsed 0.
        this.fake = clock;
        this.origin = clock.now;
        this.anchor = 0;
        this.seen = 0;
        this.base = this.last;
      }
      this.follow(clock);
    }
    return this.last;
  }

  private follow(clock: FakeClock): void {
    const elapsed = elapsedOf(clock, this.origin);
    if (elapsed < this.seen) {
      // The fake clock was reset (jest.clearAllTimers): world time goes on from where it was.
      this.base = this.last;
      this.anchor = elapsed;
    }
    this.seen = elapsed;
    this.last = Math.max(this.last, this.base + (elapsed - this.anchor));
  }

  /**
   * Jest is about to uninstall, replace or reset the fake clock: keep what it was advanced
   * by, and follow whichever clock comes next from its start (a reset one starts again at 0).
   */
  detach(): void {
    this.now();
    if (!this.fake) return;
    this.fake = undefined;
    this.base = this.last;
  }

  /** Moves the world clock on by `ms` (the fake timers are not touched). */
  advance(ms: number): void {
    if (!(ms > 0)) return;
    this.now();
    this.base += ms;
    this.last += ms;
  }

  get faked(): boolean {
    return isFakeTimers();
  }

  /** Back to 0, counting from now (also under fake timers already advanced). */
  reset(): void {
    this.base = 0;
    this.last = 0;
    const clock = fakeClock();
    this.fake = clock;
    if (clock) {
      this.origin = clock.now;
      this.anchor = elapsedOf(clock, this.origin);
      this.seen = this.anchor;
    }
  }
}
