/**
 * Runs in every test file under the preset: registers the matchers and tells the environment
 * (Jest's runner adapter) how to create the file's session when the file first needs it (a model
 * or tool request, `understudy.model`, config-level fixtures served to an agent).
 *
 * Built as a file of its own, outside the sandbox bundle (scripts/bundle-sandbox.cjs): every test
 * file runs it, and it names the matchers without loading them, so the bundle (./runtime.ts) runs
 * only in a file that asserts with one of them or needs its session.
 */
import { expect } from '@jest/globals';
import { matchersByName } from '../../matchers/names';
import { replaysCassette } from '../../src/record/paths';
import { BRIDGE_KEY, type Bridge, SETUP_KEY } from '../../src/sandbox/bridge';

type Runtime = typeof import('./runtime');
// Kept once loaded: a `require` after the file reset its module registry would run another copy of the bundle.
let loaded: Runtime | undefined;
const runtime = (): Runtime => {
  loaded ??= require('./runtime') as Runtime;
  return loaded;
};

type Matchers = Parameters<typeof expect.extend>[0];
expect.extend(
  matchersByName(
    () => runtime().lazyMatchers as unknown as Record<string, (...args: unknown[]) => unknown>,
  ) as Matchers,
);
// Without the environment, this says the setup file is configured, so the message for a missing
// environment can tell an overridden environment from a config that names neither.
(globalThis as Record<symbol, unknown>)[SETUP_KEY] = true;
const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
if (bridge) {
  bridge.runner = { name: 'jest', globals: () => require('@jest/globals') };
  bridge.loadSession = () => runtime().loadRuntime();
  // Every fixture source (a configured world or fixture file, the file's cassette) and the handlers
  // module are loaded now, so a broken one fails the file before its tests instead of failing a
  // request an agent may swallow.
  const { options } = bridge;
  if (
    options.world !== undefined ||
    options.fixtures.length > 0 ||
    options.handlers !== undefined ||
    replaysCassette(options)
  )
    bridge.loadSession();
}
