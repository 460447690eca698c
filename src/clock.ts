/**
 * The injectable clock every simulated delay goes through. Timers are read from the
 * test realm's globals at call time, so when a test switches Jest's fake timers on,
 * delays wait for `jest.advanceTimersByTime*` instead of the wall clock; with real
 * timers, `timeScale` compresses them (0 = no waiting at all).
 */
export interface Clock {
  /** Resolves after `ms` on the current timers; rejects with the signal's reason if it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Whether Jest's fake timers are installed right now. */
  readonly faked: boolean;
}

type TimerFn = typeof setTimeout & { clock?: unknown };

/** Jest's modern fake timers (@sinonjs/fake-timers) tag the functions they install with `clock`. */
export function isFakeTimers(): boolean {
  return (globalThis.setTimeout as TimerFn).clock !== undefined;
}

/**
 * What an aborted request rejects with. A default reason is a host-realm DOMException,
 * which fails `instanceof Error` in the test realm (SDKs then wrap it as an unknown
 * error); an AbortError built here is a test-realm Error with the name SDKs check.
 */
export function abortReason(signal: AbortSignal): unknown {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error((reason as Error | undefined)?.message ?? 'This operation was aborted');
  error.name = (reason as Error | undefined)?.name ?? 'AbortError';
  return error;
}

export function createClock(timeScale: number): Clock {
  return {
    get faked() {
      return isFakeTimers();
    },
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      if (!(ms > 0)) return Promise.resolve();
      const faked = isFakeTimers();
      const wait = faked ? ms : ms * timeScale;
      if (!faked && wait <= 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          globalThis.clearTimeout(timer);
          reject(abortReason(signal as AbortSignal));
        };
        const timer = globalThis.setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, wait);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
