/**
 * Jest's modern fake timers, made to keep async context (../fake-timers.ts says why): the
 * environment's `fakeTimersModern` wrapped in place, since jest-runtime calls them on that instance.
 */
import type NodeEnvironment from 'jest-environment-node';
import { bindCallbacks, changingOf, type FakeTimerHooks, installedClock } from '../fake-timers';

type ModernFakeTimers = NonNullable<NodeEnvironment['fakeTimersModern']>;
type FakeTimersConfig = Parameters<ModernFakeTimers['useFakeTimers']>[0];

/** Wraps an environment's modern fake timers in place (jest-runtime calls them on this instance). */
export function keepAsyncContext(timers: ModernFakeTimers, global: object, hooks: FakeTimerHooks): void {
  const useFakeTimers = timers.useFakeTimers.bind(timers);
  const useRealTimers = timers.useRealTimers.bind(timers);
  const clearAllTimers = timers.clearAllTimers.bind(timers);
  const changing = changingOf(hooks);
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
