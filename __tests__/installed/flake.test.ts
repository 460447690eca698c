/**
 * Flake tracking and the quarantine from the installed package, under Jest (CommonJS and ESM) and
 * Vitest: a
 * quarantined test still runs and is reported failed but does not fail the run (a test that is
 * not quarantined still does); the history in .understudy/history.jsonl is bounded, holds no
 * secret, leaves a file with lines it did not write as it is, and gives the flake rate; a
 * quarantined test that keeps passing is reported ready to leave; retries (Jest's retryTimes,
 * Vitest's retry option) are reported.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type InstalledRun, RUNNERS, runInstalled } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

const KEY = 'sk-test-FLAKEHISTORY0123456789abcdef';
const cases = ['flake-quarantine.case.js', 'flake-retry.case.js'];
const understudy = {
  quarantine: ['quarantine › always fails', 'quarantine passes now'],
  history: { keep: 3, readyAfter: 2 },
};
const statuses = (run: InstalledRun) =>
  Object.fromEntries(run.files.flatMap((f) => f.tests.map((t) => [t.title, t.status])));
const stderr = (run: InstalledRun) => stripVTControlCharacters(run.stderr);
const historyOf = (run: InstalledRun) => join(run.project, '.understudy', 'history.jsonl');
const lines = (run: InstalledRun) =>
  readFileSync(historyOf(run), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe.each(runnersOf(__filename))(
  'flake tracking and quarantine from the installed package (%s)',
  (runner) => {
    const runnerOptions = RUNNERS[runner];
    const runs: InstalledRun[] = [];
    beforeAll(async () => {
      const env = (extra: Record<string, string>) => ({ CI: undefined, OPENAI_API_KEY: KEY, ...extra });
      runs.push(await runInstalled({ cases, understudy, ...runnerOptions, env: env({ FLAKY_FAIL: '1' }) }));
      const project = runs[0].project;
      runs.push(await runInstalled({ cases, understudy, ...runnerOptions, project, env: env({}) }));
      runs.push(await runInstalled({ cases, understudy, ...runnerOptions, project, env: env({}) }));
      runs.push(
        await runInstalled({ cases, understudy, ...runnerOptions, project, env: env({ REGULAR_FAIL: '1' }) }),
      );
    }, 240_000);

    it('runs a quarantined test and reports it failed, without failing the run', () => {
      expect(runs[1].code).toBe(0);
      expect(statuses(runs[1])).toMatchObject({ 'always fails': 'failed', 'passes now': 'passed' });
      // The assertion's own message is the runner's: Jest quotes "fixed", Vitest 'fixed'.
      const message = runs[1].files
        .find((f) => f.name.endsWith('flake-quarantine.case.js'))
        ?.tests[0].failureMessages.join('');
      expect(message).toMatch(/["']fixed["']/);
      expect(stderr(runs[1])).toContain('2 quarantined tests: 1 failed (not failing the run)');
      expect(stderr(runs[1])).toContain('✕ quarantine › always fails (flake-quarantine.case.js) failed');
    });

    it('no false green: a failing test outside the quarantine still fails the run', () => {
      expect(runs[0].code).toBe(1);
      expect(statuses(runs[0])['sometimes fails']).toBe('failed');
      expect(runs[3].code).toBe(1);
      expect(statuses(runs[3]).regular).toBe('failed');
    });

    it('prints the flake rate of a test that passed and failed in recent runs', () => {
      expect(stderr(runs[2])).toContain(
        'sometimes fails (flake-quarantine.case.js): failed 1 of 3 runs (33%)',
      );
      // The quarantined test failed every time: failing, not flaky.
      expect(stderr(runs[2])).not.toContain('always fails (flake-quarantine.case.js): failed');
      // Run 4 keeps 3 records per file: the failure of run 1 is gone, so the test is no longer flaky.
      expect(stderr(runs[3])).not.toContain('sometimes fails (flake-quarantine.case.js): failed');
      expect(stderr(runs[3])).toContain('regular (flake-quarantine.case.js): failed 1 of 3 runs (33%)');
    });

    it('reports a quarantined test that passed readyAfter runs in a row as ready to leave', () => {
      expect(stderr(runs[0])).not.toContain('ready to leave');
      expect(stderr(runs[1])).toContain(
        '✓ quarantine › passes now (flake-quarantine.case.js) passed: passed 2 runs in a row, ready to leave the quarantine',
      );
      expect(stderr(runs[1])).not.toContain('always fails (flake-quarantine.case.js) failed: passed');
    });

    // The warning names the runner's own retry API.
    it('reports the retries and counts a pass on a retry as flaky', () => {
      expect(statuses(runs[0])['passes on the second attempt']).toBe('passed');
      expect(stderr(runs[0])).toContain(
        `retries mask the flake rate: ${runner === 'vitest' ? "Vitest's retry option" : 'jest.retryTimes'} in 1 file, 1 test passed only on a retry`,
      );
      expect(stderr(runs[0])).toContain('passes on the second attempt (flake-retry.case.js)');
      const retry = lines(runs[3]).filter((r) => r.file === 'flake-retry.case.js');
      expect(retry.map((r) => r.tests)).toEqual([
        [{ name: 'passes on the second attempt', status: 'flaky' }],
        [{ name: 'passes on the second attempt', status: 'flaky' }],
        [{ name: 'passes on the second attempt', status: 'flaky' }],
      ]);
    });

    it('keeps a bounded history with names and statuses only, never the key', () => {
      const records = lines(runs[3]);
      expect(records).toHaveLength(6); // keep: 3 per file, 2 files
      const quarantine = records.filter((r) => r.file === 'flake-quarantine.case.js');
      expect(quarantine[2].tests).toEqual([
        { name: 'quarantine › always fails', status: 'failed', quarantined: true },
        { name: 'quarantine › passes now', status: 'passed', quarantined: true },
        { name: 'sometimes fails', status: 'passed' },
        { name: 'regular', status: 'failed' },
        { name: 'names the key [REDACTED]', status: 'passed' },
      ]);
      expect(readFileSync(historyOf(runs[3]), 'utf8')).not.toContain(KEY);
      expect(existsSync(`${historyOf(runs[3])}.lock`)).toBe(false);
    });

    it('leaves a history file holding lines it did not write as it is, and says so', async () => {
      const project = runs[0].project;
      const theirs = `${readFileSync(historyOf(runs[3]), 'utf8')}<<<<<<< HEAD\n`;
      writeFileSync(historyOf(runs[3]), theirs);
      const run = await runInstalled({
        cases,
        understudy,
        ...runnerOptions,
        project,
        env: { CI: undefined },
      });
      expect(readFileSync(historyOf(run), 'utf8')).toBe(theirs);
      expect(stderr(run)).toContain('history not updated:');
      expect(stderr(run)).toContain('has 1 line jest-understudy did not write');
    }, 120_000);

    it('refuses a readyAfter above keep, naming the option', async () => {
      const run = await runInstalled({
        cases: ['flake-retry.case.js'],
        understudy: { history: { keep: 3, readyAfter: 5 } },
        ...runnerOptions,
      });
      expect(run.code).toBe(1);
      expect(stripVTControlCharacters(run.files[0]?.message ?? run.stderr)).toContain(
        'testEnvironmentOptions.understudy.history.readyAfter must be at most history.keep (3, the records kept per test file), received 5',
      );
    }, 120_000);
  },
);
