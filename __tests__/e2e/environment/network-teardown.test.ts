import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { runJest } from '../../support/child-jest';

describe('the network guards at teardown', () => {
  it('leave nothing patched for the next test file in the same worker', async () => {
    const run = await runJest({
      testMatch: ['__tests__/e2e/environment/network-cases/*.case.ts'],
      args: ['--runInBand', `--testSequencer=${join(__dirname, 'network-cases', 'sequencer.cjs')}`],
    });
    const results = run.files
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((file) => file.tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')]));
    expect(results).toEqual([
      ['runs with every guard in place', 'passed', ''],
      ['finds nothing the previous file patched', 'passed', ''],
    ]);
  }, 60_000);
});
