/**
 * Fake timers (Jest's modern ones and Vitest's `vi`, both @sinonjs/fake-timers), made to keep
 * async context; each adapter wraps its runner's API with these (environment/jest/fake-timers.ts,
 * environment/vitest/fake-timers.ts). A real
 * timer runs its callback in the async context of the code that scheduled it; a fake one
 * runs it from `clock.tick()`, in the context of whoever advanced the clock (the test).
 * Everything that attributes work by async context (the runtime's runs, an agent's own
 * AsyncLocalStorage) then loses track of callbacks an SDK schedules, e.g. the openai
 * stream helpers that start their request from a `setTimeout(0)`.
 *
 * The faked globals delegate to the clock's methods at call time (`setTimeout(...)` calls
 * `clock.setTimeout(...)`), so binding the callback in the clock's methods after install
 * keeps the globals the runner installed, with their `clock` tag, and uninstall restores the
 * real functions as usual.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The callback-taking APIs @sinonjs/fake-timers can fake, by their names on its clock. */
const SCHEDULERS = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'nextTick',
  'queueMicrotask',
  'requestAnimationFrame',
  'requestIdleCallback',
] as const;

type Clock = Record<string, unknown>;
type Tagged = { clock?: Clock } | undefined;

/** The clock the fake timers just installed, from the tag sinon puts on every global it fakes. */
export function installedClock(global: object, timers?: object): Clock | undefined {
  const g = global as Record<string, Tagged>;
  const candidates: Tagged[] = [
    ...SCHEDULERS.filter((name) => name !== 'nextTick').map((name) => g[name]),
    (global as { process?: { nextTick?: Tagged } }).process?.nextTick,
    g.Date,
    g.performance,
  ];
  for (const fn of candidates) if (fn?.clock) return fn.clock;
  return (timers as { _clock?: Clock } | undefined)?._clock;
}

export function bindCallbacks(clock: Clock): void {
  for (const name of SCHEDULERS) {
    const schedule = clock[name];
    if (typeof schedule !== 'function') continue;
    const inContext = function (this: unknown, callback: unknown, ...rest: unknown[]) {
      const bound =
        typeof callback === 'function' ? AsyncLocalStorage.bind(callback as () => void) : callback;
      return schedule.call(this, bound, ...rest);
    };
    // Sinon keeps flags on its methods (whether the global was an own property, read at uninstall).
    Object.defineProperties(inContext, Object.getOwnPropertyDescriptors(schedule));
    clock[name] = inContext;
  }
}

export interface FakeTimerHooks {
  /**
   * The runner is about to install, uninstall or reset the fake clock: the last moment the
   * time it was advanced by can be read.
   */
  changing(): void;
}

/**
 * `hooks.changing`, made harmless: reading the outgoing clock is a courtesy to the world clock, and
 * the runner's timers must still switch when it throws.
 */
export function changingOf(hooks: FakeTimerHooks): () => void {
  return () => {
    try {
      hooks.changing();
    } catch {
      // The timers switch whatever the hook did.
    }
  };
}
