/**
 * `live(name, fn, timeout | { timeout, minPassRate })`: a test that talks to the real provider, declared with the running
 * runner's `test` (the adapter hands it over on the bridge). It is registered as a test only in
 * live mode, with a provider key, off CI; otherwise skipped with the reason: under Jest (no
 * `skipIf`) as `test.skip`, the environment handing the reason to the reporter; under Vitest as
 * a test that skips itself with the reason as its note (`context.skip(note)`), which Vitest reports.
 * Its `minPassRate` is the test's own gate in `understudy live --repeat`.
 */
import { ciForbids, realKeys } from '../record/mode';
import { BRIDGE_KEY, type Bridge, type TestDeclaration } from './bridge';

type TestFn = (...args: any[]) => unknown;

// Required when a gated test starts: most files declare no live() test.
const runtimeModule = (): typeof import('./runtime') => require('./runtime');
const liveCalls = (): typeof import('../nightly/live-calls') => require('../nightly/live-calls');

export interface LiveOptions {
  timeout?: number;
  /** The share of this test's runs that must pass in `understudy live --repeat` (0 to 1), over `--min-pass-rate`. */
  minPassRate?: number;
}

/** Why a live test may not run here; undefined when it may. */
export function liveSkipReason(mode: string, env: NodeJS.ProcessEnv): string | undefined {
  if (ciForbids(env))
    return `live() never runs on CI (CI=${JSON.stringify(env.CI)}) but in understudy live --allow-ci: it calls the real provider`;
  if (mode !== 'live')
    return `live() runs only in live mode (understudy live, UNDERSTUDY_MODE=live); this run is in ${mode} mode`;
  if (realKeys(env).length === 0)
    return 'live() needs a provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, …); none is set';
  return undefined;
}

function optionsOf(name: string, given: number | LiveOptions | undefined): LiveOptions {
  const options = typeof given === 'number' ? { timeout: given } : (given ?? {});
  const rate = options.minPassRate;
  if (rate !== undefined && !(typeof rate === 'number' && rate >= 0 && rate <= 1))
    throw new TypeError(
      `live(${JSON.stringify(name)}, fn, { minPassRate }): minPassRate must be a number from 0 to 1, received ${JSON.stringify(rate)}`,
    );
  return options;
}

/** The test function, noting the test's own gate when it starts (the session knows its full name then). */
function gated(fn: TestFn, minPassRate: number | undefined): TestFn {
  if (minPassRate === undefined) return fn;
  const note = () => {
    const { context } = runtimeModule().loadRuntime();
    if (context.test !== undefined) liveCalls().noteGate(context.options.testPath, context.test, minPassRate);
  };
  // The same arity: Jest reads a `done` parameter from it.
  return fn.length === 0
    ? function (this: unknown) {
        note();
        return fn.call(this);
      }
    : function (this: unknown, first: unknown) {
        note();
        return fn.call(this, first);
      };
}

export function live(name: string, fn: TestFn, given?: number | LiveOptions): void {
  if (typeof name !== 'string' || name === '')
    throw new TypeError(
      `live(name, fn, timeout?): name must be a non-empty string, received ${JSON.stringify(name)}`,
    );
  if (typeof fn !== 'function')
    throw new TypeError(
      `live(${JSON.stringify(name)}, fn, timeout?): fn must be the test function, received ${typeof fn}`,
    );
  const { timeout, minPassRate } = optionsOf(name, given);
  const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
  const test = bridge?.runner?.globals().test ?? globalTest();
  const reason = bridge
    ? liveSkipReason(bridge.options.mode, process.env)
    : 'live() runs only under jest-understudy (preset: "jest-understudy", or the Vitest plugin)';
  if (reason === undefined) {
    test(name, gated(fn, minPassRate), timeout);
    return;
  }
  if (bridge?.runner?.name === 'vitest') {
    test(name, ({ skip }: { skip(note: string): void }) => skip(reason), timeout);
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

/** The runner's global `test` (Jest's, or Vitest's with `globals: true`), without an adapter. */
function globalTest(): TestDeclaration & { skip: TestDeclaration } {
  const test = (globalThis as { test?: TestDeclaration & { skip: TestDeclaration } }).test;
  if (typeof test !== 'function')
    throw new TypeError(
      'live(name, fn): no test runner declares tests here; run the file with Jest (preset: "jest-understudy") or Vitest (the jest-understudy/vitest plugin)',
    );
  return test;
}
