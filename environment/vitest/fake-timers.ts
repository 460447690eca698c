/**
 * Vitest's fake timers, made to keep async context (../fake-timers.ts says why).
 */
import { bindCallbacks, changingOf, type FakeTimerHooks, installedClock } from '../fake-timers';

type FakeTimerApi = Record<
  'useFakeTimers' | 'useRealTimers' | 'clearAllTimers',
  (...args: unknown[]) => unknown
>;

/**
 * Wraps `vi`'s methods in place (its fake timers are @sinonjs/fake-timers, installed on the
 * worker's own global); returns what puts them back.
 */
export function keepAsyncContextOfVi(vi: FakeTimerApi, hooks: FakeTimerHooks): () => void {
  const original = {
    useFakeTimers: vi.useFakeTimers,
    useRealTimers: vi.useRealTimers,
    clearAllTimers: vi.clearAllTimers,
  };
  const changing = changingOf(hooks);
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
