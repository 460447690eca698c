/**
 * Vitest's own merge of shards from the packed tarball: each shard writes a blob
 * (`--reporter=blob`), a third checkout merges them (`--merge-reports`): the summary covers every
 * shard, and the merging checkout's history gains each shard's file runs once. Vitest 4.1 finds no
 * test files when the blobs come from other checkout paths (it exits 1 before any reporter), so the
 * Node 20 job, which runs Vitest 4.1, leaves this file out (.ci/consumer.sh; docs/vitest.md).
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { freshFolder } from '../support/installed';
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

describe("Vitest's merge of shards: --reporter=blob per shard, then --merge-reports", () => {
  const cases = ['shard-weather.test.mjs', 'shard-calm.test.mjs'];
  let shards: VitestRun[];
  let merge: VitestRun;
  let checkedOut: string;
  let blobs: string;

  beforeAll(async () => {
    const storm = await runInstalledVitest({ cases, understudy, env: STORM });
    checkedOut = historyOf(storm.project);
    blobs = freshFolder('blobs-');
    // Two machines, each writing its blob where the merge job collects them.
    shards = await Promise.all(
      ['1/2', '2/2'].map((shard, i) =>
        runInstalledVitest({
          cases,
          understudy,
          args: [
            `--shard=${shard}`,
            '--reporter=blob',
            `--outputFile.blob=${join(blobs, `blob-${i + 1}-2.json`)}`,
          ],
          files: { [HISTORY]: checkedOut },
        }),
      ),
    );
    // A third machine merges them, in its own checkout.
    merge = await runInstalledVitest({
      cases,
      understudy,
      args: [`--merge-reports=${blobs}`],
      files: { [HISTORY]: checkedOut },
    });
  }, 300_000);

  it('prints the summary of every shard together, with the history it recorded', () => {
    expect(shards.map((s) => s.code)).toEqual([0, 0]);
    const text = said(merge);
    expect(merge.code).toBe(0);
    expect(text).toContain('jest-understudy\n  2 agent runs\n  2 model calls replayed (openai 2)');
    expect(text).toContain('1 quarantined test: 0 failed (not failing the run)');
    expect(text).toContain('depends on the weather (shard-weather.test.mjs): failed 1 of 2 runs (50%)');
  });

  it("writes each shard's file run into the merging checkout's history once, as the shard that ran it did", () => {
    const records = recordsOf(historyOf(merge.project));
    const before = recordsOf(checkedOut);
    expect(records).toHaveLength(before.length + 2);
    const added = records.slice(before.length);
    expect(added.map((r) => r.file).sort()).toEqual([...cases].sort());
    expect(added.flatMap((r) => r.tests.map((t) => t.status))).toEqual(['passed', 'passed']);
    // The same file runs as the shards' own histories hold, so every copy counts once.
    const shardRuns = shards.flatMap((s) => recordsOf(historyOf(s.project)).slice(before.length));
    expect(added.map((r) => `${r.run} ${r.file}`).sort()).toEqual(
      shardRuns.map((r) => `${r.run} ${r.file}`).sort(),
    );
  });

  it("the next run reads the shards' and the merge's histories together with each run once", async () => {
    const union = [...shards.map((s) => s.project), merge.project].map(historyOf).join('');
    const next = await runInstalledVitest({ cases, understudy, files: { [HISTORY]: union } });
    expectMergedHistoryRead(next, 'shard-weather.test.mjs', 'shard-calm.test.mjs');
  }, 120_000);

  it('on one machine, merging adds none of the file runs the shards recorded already', async () => {
    const local = freshFolder('blobs-');
    const blob = (shard: string) => [
      `--shard=${shard}`,
      '--reporter=blob',
      `--outputFile.blob=${join(local, `blob-${shard.replace('/', '-')}.json`)}`,
    ];
    const first = await runInstalledVitest({
      cases,
      understudy,
      args: blob('1/2'),
      files: { [HISTORY]: checkedOut },
    });
    const { project } = first;
    await runInstalledVitest({ cases, understudy, project, args: blob('2/2') });
    const shardsWrote = recordsOf(historyOf(project));
    expect(shardsWrote).toHaveLength(recordsOf(checkedOut).length + 2);
    const merged = await runInstalledVitest({
      cases,
      understudy,
      project,
      args: [`--merge-reports=${local}`],
    });
    expect(merged.code).toBe(0);
    expect(said(merged)).toContain(
      'depends on the weather (shard-weather.test.mjs): failed 1 of 2 runs (50%)',
    );
    expect(
      recordsOf(historyOf(project))
        .map((r) => `${r.run} ${r.file}`)
        .sort(),
    ).toEqual(shardsWrote.map((r) => `${r.run} ${r.file}`).sort());
  }, 180_000);
});
