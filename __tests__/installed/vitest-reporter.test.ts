/**
 * The Vitest reporter from the packed tarball: the plugin adds it beside whatever reporters the
 * config or the command line chose; it prints the same summary as under Jest from each file's
 * report (the task's `meta`), keeps the flake history, counts tags, selects tests by
 * UNDERSTUDY_TAGS, and leaves quarantined failures out of the exit code only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { runInstalledVitest } from '../support/installed-vitest';

const QUARANTINED = 'a quarantined flaky test that fails';

const statusOf = (run: Awaited<ReturnType<typeof runInstalledVitest>>, name: string) =>
  Object.fromEntries(
    (run.files.find((f) => f.name.endsWith(`/${name}`))?.tests ?? []).map((t) => [t.fullName, t.status]),
  );

describe('the Vitest reporter', () => {
  it('prints the summary, writes the history and leaves only quarantined failures out of the exit code', async () => {
    const run = await runInstalledVitest({
      cases: ['tagged.test.mjs'],
      understudy: { quarantine: [QUARANTINED] },
    });
    const said = stripVTControlCharacters(run.stderr);
    expect(statusOf(run, 'tagged.test.mjs')).toEqual({
      'billing @billing answers a refund question @refunds': 'passed',
      [QUARANTINED]: 'failed',
    });
    expect(said).toContain('jest-understudy\n  2 agent runs\n  2 model calls replayed (openai 2)');
    expect(said).toContain('1 quarantined test: 1 failed (not failing the run)');
    expect(said).toMatch(/@billing +1 passed/);
    expect(said).toMatch(/@smoke +1 passed, 1 failed/);
    expect(run.code).toBe(0);
    const history = readFileSync(join(run.project, '.understudy', 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ file: 'tagged.test.mjs', code: expect.stringMatching(/^sha256:/) });
    expect(history[0].tests).toEqual(
      expect.arrayContaining([
        { name: 'billing @billing › answers a refund question @refunds', status: 'passed' },
        expect.objectContaining({ name: QUARANTINED, status: 'failed', quarantined: true }),
      ]),
    );
  }, 120_000);

  it('fails the run when a failure is not quarantined', async () => {
    const run = await runInstalledVitest({ cases: ['tagged.test.mjs'] });
    expect(statusOf(run, 'tagged.test.mjs')[QUARANTINED]).toBe('failed');
    expect(stripVTControlCharacters(run.stderr)).not.toContain('quarantined test');
    expect(run.code).toBe(1);
  }, 120_000);

  it('runs only the tests UNDERSTUDY_TAGS selects, and says why the others were skipped', async () => {
    const run = await runInstalledVitest({ cases: ['tagged.test.mjs'], env: { UNDERSTUDY_TAGS: 'refunds' } });
    expect(statusOf(run, 'tagged.test.mjs')).toEqual({
      'billing @billing answers a refund question @refunds': 'passed',
      [QUARANTINED]: 'skipped',
    });
    expect(stripVTControlCharacters(run.stderr)).toContain(
      `${QUARANTINED} (tagged.test.mjs): not tagged @refunds (UNDERSTUDY_TAGS=refunds)`,
    );
    expect(run.code).toBe(0);
  }, 120_000);
});
