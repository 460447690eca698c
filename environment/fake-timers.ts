/**
 * Jest's modern fake timers (@sinonjs/fake-timers), made to keep async context. A real
 * timer runs its callback in the async context of the code that scheduled it; a fake one
 * runs it from `clock.tick()`, in the context of whoever advanced the clock (the test).
 * Everything that attributes work by async context (the runtime's runs, an agent's own
 * AsyncLocalStorage) then loses track of callbacks an SDK schedules, e.g. the openai
 * stream helpers that start their request from a `setTimeout(0)`.
 *
 * The faked globals delegate to the clock's methods at call time (`setTimeout(...)` calls
 * `clock.setTimeout(...)`), so binding the callback in the clock's methods after install
 * keeps the globals Jest installed, with their `clock` tag, and uninstall restores the
 * real functions as usual.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type NodeEnvironment from 'jest-environment-node';

type ModernFakeTimers = NonNullable<NodeEnvironment['fakeTimersModern']>;
type FakeTimersConfig = Parameters<ModernFakeTimers['useFakeTimers']>[0];

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
   * Jest is about to install, uninstall or reset the fake clock: the last moment the
   * time it was advanced by can be read.
   */
  changing(): void;
}

/** Wraps an environment's modern fake timers in place (jest-runtime calls them on this instance). */
export function keepAsyncContext(timers: ModernFakeTimers, global: object, hooks: FakeTimerHooks): void {
  const useFakeTimers = timers.useFakeTimers.bind(timers);
  const useRealTimers = timers.useRealTimers.bind(timers);
  const clearAllTimers = timers.clearAllTimers.bind(timers);
  const changing = () => {
    try {
      hooks.changing();
    } catch {
      // Reading the outgoing clock is a courtesy to the world clock; Jest's timers must still switch.
    }
  };
  timers.useFakeTimers = (config?: FakeTimersConfig) => {
    changing();
    useFakeTimers(config);
    const clock = installedClock(global, timers);
    if (clock) bindCallbacks(clock);
  };
  timers.useRealTimers = () => {
    changing();
    useRealTimers();
  };
  timers.clearAllTimers = () => {
    changing();
    clearAllTimers();
  };
}

type FakeTimerApi = Record<
  'useFakeTimers' | 'useRealTimers' | 'clearAllTimers',
  (...args: unknown[]) => unknown
>;

/**
 * The same for Vitest's `vi` (its fake timers are @sinonjs/fake-timers too, installed on the
 * worker's own global): wraps its methods in place; returns what puts them back.
 */
export function keepAsyncContextOfVi(vi: FakeTimerApi, hooks: FakeTimerHooks): () => void {
  const original = {
    useFakeTimers: vi.useFakeTimers,
    useRealTimers: vi.useRealTimers,
    clearAllTimers: vi.clearAllTimers,
  };
  const changing = () => {
    try {
      hooks.changing();
    } catch {
      // As above: Vitest's timers must still switch.
    }
  };
  vi.useFakeTimers = function (this: unknown, ...args: unknown[]) {
    changing();
    const result = original.useFakeTimers.apply(this, args);
    const clock = installedClock(globalThis);
    if (clock) bindCallbacks(clock);
    return result;
  };
  vi.useRealTimers = function (this: unknown, ...args: unknown[]) {
    changing();
    return original.useRealTimers.apply(this, args);
  };
  vi.clearAllTimers = function (this: unknown, ...args: unknown[]) {
    changing();
    return original.clearAllTimers.apply(this, args);
  };
  return () => Object.assign(vi, original);
}
