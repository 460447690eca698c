/**
 * Runs in every test file under the preset: registers the matchers and tells the
 * environment how to create the runtime when the file first needs it (a model or tool
 * request, `understudy.model`, config-level fixtures served to an agent).
 */
import { expect } from '@jest/globals';
import { lazyMatchers } from '../matchers/lazy';
import { BRIDGE_KEY, type Bridge } from '../src/runtime/bridge';

expect.extend(lazyMatchers);
const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
if (bridge) {
  bridge.loadRuntime = () => require('../src/runtime/runtime').getRuntime();
  // A configured world or fixture file is loaded now, so a broken one fails the file before its tests.
  if (bridge.options.world !== undefined || bridge.options.fixtures.length > 0) bridge.loadRuntime();
}
