/**
 * Runs in every test file under the preset: registers the matchers and tells the
 * environment (Jest's runner adapter) how to create the file's session when the file first
 * needs it (a model or tool request, `understudy.model`, config-level fixtures served to an agent).
 */
import { expect } from '@jest/globals';
import { lazyMatchers } from '../../matchers/lazy';
import { replaysCassette } from '../../src/record/paths';
import { BRIDGE_KEY, type Bridge, SETUP_KEY } from '../../src/sandbox/bridge';

expect.extend(lazyMatchers);
// Without the environment, this says the setup file is configured, so the message for a missing
// environment can tell an overridden environment from a config that names neither.
(globalThis as Record<symbol, unknown>)[SETUP_KEY] = true;
const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
if (bridge) {
  bridge.runner = { name: 'jest', globals: () => require('@jest/globals') };
  bridge.loadSession = () => require('../../src/sandbox/runtime').loadRuntime();
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
