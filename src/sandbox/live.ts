/**
 * `live(name, fn, timeout)`: a test that talks to the real provider. Jest has no `skipIf`, so it
 * is registered as `test` only in live mode, with a provider key, off CI; otherwise as
 * `test.skip`, and the environment hands the reason to the reporter.
 */
import { isCI, realKeys } from '../record/mode';
import { BRIDGE_KEY, type Bridge } from './bridge';

type TestFn = (...args: any[]) => unknown;

/** Why a live test may not run here; undefined when it may. */
export function liveSkipReason(mode: string, env: NodeJS.ProcessEnv): string | undefined {
  if (isCI(env)) return `live() never runs on CI (CI=${JSON.stringify(env.CI)}): it calls the real provider`;
  if (mode !== 'live')
    return `live() runs only in live mode (understudy live, UNDERSTUDY_MODE=live); this run is in ${mode} mode`;
  if (realKeys(env).length === 0)
    return 'live() needs a provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, …); none is set';
  return undefined;
}

export function live(name: string, fn: TestFn, timeout?: number): void {
  if (typeof name !== 'string' || name === '')
    throw new TypeError(
      `live(name, fn, timeout?): name must be a non-empty string, received ${JSON.stringify(name)}`,
    );
  if (typeof fn !== 'function')
    throw new TypeError(
      `live(${JSON.stringify(name)}, fn, timeout?): fn must be the test function, received ${typeof fn}`,
    );
  const { test } = require('@jest/globals') as {
    test: { (n: string, f: TestFn, t?: number): void; skip(n: string, f: TestFn, t?: number): void };
  };
  const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
  const reason = bridge
    ? liveSkipReason(bridge.options.mode, process.env)
    : 'live() runs only under the jest-understudy environment (preset: "jest-understudy")';
  if (reason === undefined) {
    test(name, fn, timeout);
    return;
  }
  // A function of its own, so the environment finds this test's reason by it.
  const skipped: TestFn = () => fn;
  if (bridge) {
    bridge.liveSkips ??= new Map();
    bridge.liveSkips.set(skipped, reason);
  }
  test.skip(name, skipped, timeout);
}
