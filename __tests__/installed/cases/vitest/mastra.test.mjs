/**
 * The Mastra scenarios under Vitest (see mastra-scenarios.mjs).
 *
 * @understudy-world ./mastra.world.yaml
 */
import { expect, it, vi } from 'vitest';
import scenarios from './mastra-scenarios.mjs';

for (const [title, [body]] of Object.entries(scenarios)) it(title, () => body({ expect, spyOn: vi.spyOn }));
