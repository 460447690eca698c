/**
 * Start-up from the packed tarball: a test file that uses nothing of jest-understudy does not run
 * the package's sandbox bundle (the matchers are registered by name and load on first use), and
 * the matchers still judge a run once used. Under Jest (the preset's setup file; CommonJS and ESM)
 * and under the Vitest plugin, where a file also loads Node's undici only on its first use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CASES, fileOf, RUNNERS, runInstalled, statuses } from '../support/installed';
import { runInstalledVitest } from '../support/installed-vitest';
import { rowsOf } from '../support/runner-tier';

const JEST_ROWS = [
  ['Jest CommonJS, no flag', 'jest-cjs'],
  ['Jest with --experimental-vm-modules', 'jest-esm'],
] as const;

describe.each(rowsOf(__filename, JEST_ROWS))('start-up under the preset (%s)', (_, runner) => {
  it('runs the sandbox bundle only when the file first uses the package, and the matchers judge runs, also after a reset of the module registry', async () => {
    const cases = ['speed-lazy.case.js', 'speed-lazy-reset.case.js'];
    const run = await runInstalled({ cases, ...RUNNERS[runner] });
    expect({
      code: run.code,
      lazy: statuses(fileOf(run, cases[0])),
      reset: statuses(fileOf(run, cases[1])),
    }).toEqual({
      code: 0,
      lazy: {
        'has not run the sandbox bundle in a file that used nothing of the package': 'passed',
        'runs the sandbox bundle on first use; the matchers registered before it judge the run': 'passed',
      },
      reset: {
        'judges a run made before the first matcher loaded': 'passed',
        'judges a run of a later test, after another reset': 'passed',
      },
    });
  }, 120_000);
});

/** The exit code of a Vitest run of one case file, and its tests' statuses by title. */
const outcome = (run: Awaited<ReturnType<typeof runInstalledVitest>>) => ({
  code: run.code,
  tests: Object.fromEntries((run.files[0]?.tests ?? []).map((t) => [t.title, t.status])),
});

describe('start-up under the Vitest plugin', () => {
  it('loads the sandbox bundle only when the file first uses the package, and the matchers judge runs', async () => {
    const run = await runInstalledVitest({
      cases: ['speed-lazy.test.mjs'],
      files: { 'refund-agent.cjs': readFileSync(join(CASES, 'refund-agent.cjs'), 'utf8') },
    });
    expect(outcome(run)).toEqual({
      code: 0,
      tests: {
        'has not loaded the sandbox bundle in a file that used nothing of it': 'passed',
        'registers the matchers before they load: a wrong final message still fails': 'passed',
      },
    });
  }, 120_000);

  it("loads Node's undici only when the file first uses it, with the containment's dispatcher in place at once", async () => {
    const run = await runInstalledVitest({ cases: ['speed-undici.test.mjs'] });
    expect(outcome(run)).toEqual({
      code: 0,
      tests: {
        "has not loaded Node's undici in a file that sent nothing": 'passed',
        "puts the containment's dispatcher in undici's slots as a global of Node's undici loads it": 'passed',
      },
    });
  }, 120_000);
});
