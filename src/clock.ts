/**
 * The injectable clock every simulated delay goes through. Timers are read from the
 * test realm's globals at call time, so when a test switches Jest's fake timers on,
 * delays wait for `jest.advanceTimersByTime*` instead of the wall clock; with real
 * timers, `timeScale` compresses them (0 = no waiting at all).
 */
export interface Clock {
  sleep(ms: number): Promise<void>;
  /** Whether Jest's fake timers are installed right now. */
  readonly faked: boolean;
}

type TimerFn = typeof setTimeout & { clock?: unknown; _isMockFunction?: boolean };

export function isFakeTimers(): boolean {
  const timer = globalThis.setTimeout as TimerFn;
  // @sinonjs/fake-timers (Jest's modern timers) tags the functions it installs with `clock`;
  // legacy fake timers are jest.fn()s.
  return timer.clock !== undefined || timer._isMockFunction === true;
}

export function createClock(timeScale: number): Clock {
  return {
    get faked() {
      return isFakeTimers();
    },
    sleep(ms) {
      if (!(ms > 0)) return Promise.resolve();
      const faked = isFakeTimers();
      const wait = faked ? ms : ms * timeScale;
      if (!faked && wait <= 0) return Promise.resolve();
      return new Promise((resolve) => globalThis.setTimeout(resolve, wait));
    },
  };
}
