/**
 * The shard scenario both Vitest shard drivers share (../installed/vitest-shards.test.ts,
 * ../installed/vitest-merge-reports.test.ts): a quarantined test that always passes and one that
 * failed in a storm run, the history files they write, and what a run reading them must say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect } from '@jest/globals';

export const HISTORY = join('.understudy', 'history.jsonl');
export const understudy = { quarantine: ['stays calm'], history: { keep: 20, readyAfter: 3 } };
export const STORM = { SHARD_WEATHER: 'storm' };

export const historyOf = (project: string) => readFileSync(join(project, HISTORY), 'utf8');
export const recordsOf = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { run: string; file: string; tests: Array<{ status: string }> });
export const said = (run: { stderr: string }) => stripVTControlCharacters(run.stderr);

/** What the run after the shards must say, reading the merged history. */
export function expectMergedHistoryRead(
  run: { stderr: string; code: number | null },
  weather: string,
  calm: string,
) {
  const text = said(run);
  expect(run.code).toBe(0);
  // The storm run failed, the shard run and this one passed: 1 of 3, however many copies of a line.
  expect(text).toContain(`depends on the weather (${weather}): failed 1 of 3 runs (33%)`);
  // The storm run, the shard run and this one: 3 passes in a row, the quarantine's readyAfter.
  expect(text).toContain(
    `✓ stays calm (${calm}) passed: passed 3 runs in a row, ready to leave the quarantine`,
  );
}
