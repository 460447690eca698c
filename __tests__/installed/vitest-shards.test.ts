/**
 * Scale-out under Vitest from the packed tarball: `vitest --shard` on two "machines" (two folders)
 * whose histories are concatenated, as git's `merge=union` does, and Vitest's own merge of shards
 * (`--reporter=blob` per shard, then `--merge-reports`). Either way the next run reads one history in
 * which every file run counts once: the flake rate and the quarantine's passes in a row are those of
 * the runs that happened, as for Jest's shards.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type InstalledRun, runInstalled } from '../support/installed';
import { runInstalledVitest, type VitestRun } from '../support/installed-vitest';
import {
  expectMergedHistoryRead,
  HISTORY,
  historyOf,
  recordsOf,
  STORM,
  said,
  understudy,
} from '../support/shard-history';

const ranFiles = (run: VitestRun | InstalledRun) => run.files.map((f) => f.name.split('/').pop()).sort();

describe('vitest --shard on two machines, their histories concatenated', () => {
  const cases = ['shard-weather.test.mjs', 'shard-calm.test.mjs'];
  let storm: VitestRun;
  let shards: VitestRun[];
  let third: VitestRun;
  let merged: string;

  beforeAll(async () => {
    // The history both machines check out: one run in which the weather test failed.
    storm = await runInstalledVitest({ cases, understudy, env: STORM });
    const checkedOut = historyOf(storm.project);
    shards = await Promise.all(
      ['1/2', '2/2'].map((shard) =>
        runInstalledVitest({
          cases,
          understudy,
          args: [`--shard=${shard}`],
          files: { [HISTORY]: checkedOut },
        }),
      ),
    );
    // git's merge=union: both sides' lines, the checked-out ones twice.
    merged = shards.map((s) => historyOf(s.project)).join('');
    third = await runInstalledVitest({ cases, understudy, files: { [HISTORY]: merged } });
  }, 300_000);

  it('each shard runs its own file and keeps its own history', () => {
    expect(storm.code).toBe(1);
    expect(shards.map((s) => s.code)).toEqual([0, 0]);
    expect(shards.flatMap(ranFiles).sort()).toEqual([...cases].sort());
    for (const shard of shards) {
      expect(ranFiles(shard)).toHaveLength(1);
      // Its summary counts its own file only.
      expect(said(shard)).toContain('jest-understudy\n  1 agent run\n  1 model call replayed (openai 1)');
    }
    expect(recordsOf(merged)).toHaveLength(2 * 2 + 2);
  });

  it('the next run reads the merged history with each run once', () => {
    expectMergedHistoryRead(third, 'shard-weather.test.mjs', 'shard-calm.test.mjs');
    // Written back without the copies: the storm run, the shards' and this run, per file.
    const records = recordsOf(historyOf(third.project));
    expect(records).toHaveLength(3 * 2);
    expect(new Set(records.map((r) => `${r.run} ${r.file}`)).size).toBe(records.length);
  });

  it('reads as the same scenario under Jest --shard does', async () => {
    const jestCases = ['shard-weather.case.js', 'shard-calm.case.js'];
    const jestStorm = await runInstalled({ cases: jestCases, understudy, env: STORM });
    expect(jestStorm.code).toBe(1);
    const checkedOut = historyOf(jestStorm.project);
    const jestShards = await Promise.all(
      ['1/2', '2/2'].map((shard) =>
        runInstalled({
          cases: jestCases,
          understudy,
          args: [`--shard=${shard}`],
          files: { [HISTORY]: checkedOut },
        }),
      ),
    );
    expect(jestShards.flatMap(ranFiles).sort()).toEqual([...jestCases].sort());
    const jestMerged = jestShards.map((s) => historyOf(s.project)).join('');
    const jestThird = await runInstalled({ cases: jestCases, understudy, files: { [HISTORY]: jestMerged } });
    expectMergedHistoryRead(jestThird, 'shard-weather.case.js', 'shard-calm.case.js');
  }, 300_000);
});
