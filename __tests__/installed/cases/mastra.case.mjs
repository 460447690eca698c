/**
 * The Mastra scenarios under Jest, as an ES module with --experimental-vm-modules (see
 * vitest/mastra-scenarios.mjs).
 *
 * @understudy-world ./vitest/mastra.world.yaml
 */
import { expect, it, jest } from '@jest/globals';
import scenarios from './vitest/mastra-scenarios.mjs';

for (const [title, [body]] of Object.entries(scenarios))
  it(title, () => body({ expect, spyOn: jest.spyOn.bind(jest) }));
