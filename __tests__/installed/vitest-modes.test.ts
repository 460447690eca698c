/**
 * What runs only under Vitest from the packed tarball: prompt snapshots live in Vitest's snapshot
 * files. (Record, replay and live() are the cassettes and tags drivers' cases, describeGoldenTasks
 * runs-golden.case.js: each run under every runner.)
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { runInstalledVitest, type VitestRun } from '../support/installed-vitest';

const statusOf = (run: VitestRun, name: string) =>
  Object.fromEntries(
    (run.files.find((f) => f.name.endsWith(`/${name}`))?.tests ?? []).map((t) => [t.title, t.status]),
  );

describe('under Vitest only', () => {
  it("keeps prompt snapshots in Vitest's snapshot files: a changed prompt fails on CI", async () => {
    const first = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      env: { CI: undefined, SNAP_PROMPT: 'be nice' },
    });
    expect(statusOf(first, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'passed' });
    const same = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      project: first.project,
      env: { CI: 'true', SNAP_PROMPT: 'be nice' },
    });
    expect(statusOf(same, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'passed' });
    const changed = await runInstalledVitest({
      cases: ['snapshot.test.mjs'],
      project: first.project,
      env: { CI: 'true', SNAP_PROMPT: 'be rude' },
    });
    expect(statusOf(changed, 'snapshot.test.mjs')).toEqual({ 'snapshots the prompt': 'failed' });
    const failure = stripVTControlCharacters(changed.files[0]?.tests[0]?.failureMessages[0] ?? '');
    expect(failure).toContain('-   be nice\n+   be rude');
  }, 120_000);
});
