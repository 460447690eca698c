// A Vitest file under the plugin loads Node's undici only when it first uses it, and the containment's
// dispatcher is in undici's slots from that moment: the code that loaded undici sends through it.

import { expect, it } from 'vitest';

const undiciLoaded = () => process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
const SLOTS = [Symbol.for('undici.globalDispatcher.1'), Symbol.for('undici.globalDispatcher.2')];

it("has not loaded Node's undici in a file that sent nothing", () => {
  expect(undiciLoaded()).toBe(false);
});

it("puts the containment's dispatcher in undici's slots as a global of Node's undici loads it", () => {
  const response = new Response('loaded');
  // Read in the same task: no microtask has run since undici loaded.
  const slots = SLOTS.map((slot) => globalThis[slot]?.constructor.name);
  expect(response.status).toBe(200);
  expect(undiciLoaded()).toBe(true);
  expect(slots).toEqual(['InterceptionDispatcher', 'InterceptionDispatcher']);
});
