import { describe, expect, it } from '@jest/globals';
import { sharedRun } from '../support/shared-runs';

describe('the installed package', () => {
  it.each([
    ['CommonJS, no flag', 'jest-cjs'],
    ['with --experimental-vm-modules', 'jest-esm'],
    ['Vitest with the plugin', 'vitest'],
  ] as const)(
    'runs a consumer test (%s)',
    async (_, runner) => {
      const run = await sharedRun('smoke', runner);
      expect(run.files[0].tests.map((t) => [t.title, t.status])).toEqual([['replays a reply', 'passed']]);
      expect(run.files[0].name).toContain('/runs/');
    },
    60_000,
  );
});
