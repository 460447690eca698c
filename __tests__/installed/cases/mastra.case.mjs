/**
 * The Mastra scenarios under Jest, as an ES module with --experimental-vm-modules (see
 * vitest/mastra-scenarios.mjs).
 *
 * @understudy-world ./vitest/mastra.world.yaml
 */
import { expect, it, jest } from '@jest/globals';
import scenarios from './vitest/mastra-scenarios.mjs';

const runner = {
  expect,
  spyOn: jest.spyOn.bind(jest),
  fakeTimers: () => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'setImmediate'] }),
  realTimers: () => jest.useRealTimers(),
};

for (const [title, [body]] of Object.entries(scenarios)) it(title, () => body(runner));
