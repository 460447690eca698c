/**
 * Start-up under the Vitest plugin from the packed tarball: a test file that uses nothing of
 * jest-understudy does not load the package's sandbox bundle (the matchers are registered by name
 * and load on first use), and the matchers still judge a run once used.
 */
import { describe, expect, it } from '@jest/globals';
import { runInstalledVitest } from '../support/installed-vitest';

describe('start-up under the Vitest plugin', () => {
  it('loads the sandbox bundle only when the file first uses the package, and the matchers judge runs', async () => {
    const run = await runInstalledVitest({ cases: ['speed-lazy.test.mjs'] });
    const tests = Object.fromEntries((run.files[0]?.tests ?? []).map((t) => [t.title, t.status]));
    expect({ code: run.code, tests }).toEqual({
      code: 0,
      tests: {
        'has not loaded the sandbox bundle in a file that used nothing of it': 'passed',
        'registers the matchers before they load: a wrong final message still fails': 'passed',
      },
    });
  }, 120_000);
});
