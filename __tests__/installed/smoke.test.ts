import { describe, expect, it } from '@jest/globals';
import { runInstalled } from '../support/installed';

describe('the installed package', () => {
  it.each([
    ['CommonJS, no flag', false],
    ['with --experimental-vm-modules', true],
  ])(
    'runs a consumer test (%s)',
    async (_, esm) => {
      const run = await runInstalled({ cases: ['smoke.case.js'], esm });
      expect(run.files[0].tests.map((t) => [t.title, t.status])).toEqual([['replays a reply', 'passed']]);
      expect(run.files[0].name).toContain('/runs/');
    },
    60_000,
  );
});
