/**
 * The Mastra scenarios under Vitest (see mastra-scenarios.mjs).
 *
 * @understudy-world ./mastra.world.yaml
 */
import { expect, it, vi } from 'vitest';
import scenarios from './mastra-scenarios.mjs';

const runner = {
  expect,
  spyOn: vi.spyOn,
  fakeTimers: () =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }),
  realTimers: () => vi.useRealTimers(),
};

for (const [title, [body]] of Object.entries(scenarios)) it(title, () => body(runner));
