// The parity scenarios under Vitest (see parity-scenarios.cjs), from an ES module test file.
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

const scenarios = createRequire(import.meta.url)('./parity-scenarios.cjs');

for (const [title, [body]] of Object.entries(scenarios)) it(title, () => body(expect));
