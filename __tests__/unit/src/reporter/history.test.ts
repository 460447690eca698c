/**
 * The test history file: shards' and branches' files concatenate (a run and file seen twice
 * counts once, order comes back by time), each test file keeps its latest records, a file with
 * lines that are not ours is left untouched, and flake rates and pass streaks read right.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import { codeKey } from '../../../../environment/code-key';
import {
  bounded,
  flaky,
  type HistoryRecord,
  type HistoryStatus,
  readHistory,
  testHistories,
  updateHistory,
} from '../../../../src/reporter/history';
import { HISTORY_FORMAT } from '../../../../src/reporter/history.schema';
import { reportTests } from '../../../../src/reporter/results';

const record = (
  run: string,
  at: string,
  file: string,
  statuses: Record<string, HistoryStatus>,
): HistoryRecord => ({
  format: HISTORY_FORMAT,
  run,
  at,
  file,
  tests: Object.entries(statuses).map(([name, status]) => ({ name, status })),
});
const jsonl = (records: HistoryRecord[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const folder = () => mkdtempSync(join(tmpdir(), 'understudy-history-'));

describe('the history file', () => {
  it('merges the files of two shards concatenated in any order: duplicates once, in time order', () => {
    const a = [record('r1', '2026-01-01T00:00:01Z', 'a.test.js', { x: 'passed' })];
    const b = [
      record('r1', '2026-01-01T00:00:02Z', 'b.test.js', { y: 'failed' }),
      record('r0', '2026-01-01T00:00:00Z', 'b.test.js', { y: 'passed' }),
    ];
    const path = join(folder(), 'history.jsonl');
    writeFileSync(path, jsonl([...b, ...a, ...a]));
    const { records, foreign } = readHistory(path);
    expect(foreign).toEqual([]);
    expect(records.map((r) => `${r.run} ${r.file}`)).toEqual([
      'r0 b.test.js',
      'r1 a.test.js',
      'r1 b.test.js',
    ]);
  });

  it('keeps each test file its latest records', () => {
    const records = [1, 2, 3, 4].map((i) =>
      record(`r${i}`, `2026-01-0${i}T00:00:00Z`, 'a.test.js', { x: 'passed' }),
    );
    const other = record('r9', '2025-01-01T00:00:00Z', 'b.test.js', { y: 'passed' });
    expect(bounded([...records, other], 2).map((r) => r.run)).toEqual(['r9', 'r3', 'r4']);
  });

  it('adds records, trims, and removes its lock file', () => {
    const path = join(folder(), 'nested', 'history.jsonl');
    const first = updateHistory(
      path,
      [record('r1', '2026-01-01T00:00:00Z', 'a.test.js', { x: 'failed' })],
      2,
    );
    expect(first.ok).toBe(true);
    updateHistory(path, [record('r2', '2026-01-02T00:00:00Z', 'a.test.js', { x: 'passed' })], 2);
    const third = updateHistory(
      path,
      [record('r3', '2026-01-03T00:00:00Z', 'a.test.js', { x: 'passed' })],
      2,
    );
    expect(third.records.map((r) => r.run)).toEqual(['r2', 'r3']);
    expect(readHistory(path).records.map((r) => r.run)).toEqual(['r2', 'r3']);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("adds a file run the file holds already once (a shard's run, reported again by the merge of blob reports)", () => {
    const path = join(folder(), 'history.jsonl');
    const shard = record('s1', '2026-01-01T00:00:00Z', 'a.test.js', { x: 'passed' });
    updateHistory(path, [shard], 5);
    const again = updateHistory(
      path,
      [shard, record('s2', '2026-01-01T00:00:01Z', 'b.test.js', { y: 'passed' })],
      5,
    );
    expect(again.records.map((r) => `${r.run} ${r.file}`)).toEqual(['s1 a.test.js', 's2 b.test.js']);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('leaves a file with lines it did not write as it is', () => {
    const path = join(folder(), 'history.jsonl');
    const theirs = `${jsonl([record('r1', '2026-01-01T00:00:00Z', 'a.test.js', { x: 'passed' })])}{"other":"tool"}\n`;
    writeFileSync(path, theirs);
    const update = updateHistory(
      path,
      [record('r2', '2026-01-02T00:00:00Z', 'a.test.js', { x: 'passed' })],
      5,
    );
    expect(update.ok).toBe(false);
    expect(update.ok === false && update.reason).toContain('has 1 line jest-understudy did not write');
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });

  it('does not touch the file while another run holds its lock', () => {
    const path = join(folder(), 'history.jsonl');
    writeFileSync(`${path}.lock`, '1');
    // The clock moves a second each time it is read, so the wait for the lock reaches its
    // deadline after a few tries instead of five real seconds (and long before the lock is stale).
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => (now += 1000));
    let update: ReturnType<typeof updateHistory>;
    try {
      update = updateHistory(path, [record('r1', '2026-01-01T00:00:00Z', 'a.test.js', { x: 'passed' })], 5);
    } finally {
      clock.mockRestore();
    }
    expect(update).toMatchObject({ ok: false, reason: `${path}.lock is held by another run` });
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe('1');
  });
});

describe('flake rates and streaks', () => {
  const records = [
    record('r1', '2026-01-01T00:00:00Z', 'a.test.js', {
      flips: 'failed',
      steady: 'passed',
      broken: 'failed',
      retried: 'passed',
    }),
    record('r2', '2026-01-02T00:00:00Z', 'a.test.js', {
      flips: 'passed',
      steady: 'passed',
      broken: 'failed',
      retried: 'flaky',
    }),
    record('r3', '2026-01-03T00:00:00Z', 'a.test.js', {
      flips: 'passed',
      steady: 'passed',
      broken: 'failed',
      retried: 'passed',
    }),
  ];

  it('names the tests that passed and failed, not those that always pass or always fail', () => {
    const histories = testHistories(records, 10);
    expect(flaky(histories).map((h) => [h.name, h.failed, h.runs])).toEqual([
      ['flips', 1, 3],
      ['retried', 1, 3],
    ]);
    expect(histories.find((h) => h.name === 'flips')?.passStreak).toBe(2);
    expect(histories.find((h) => h.name === 'retried')?.passStreak).toBe(1);
  });

  it('a pass on a retry alone is flaky', () => {
    expect(flaky(testHistories([record('r1', '2026-01-01T00:00:00Z', 'a', { t: 'flaky' })], 5))).toHaveLength(
      1,
    );
  });

  it('reads only the window', () => {
    expect(flaky(testHistories(records, 2)).map((h) => h.name)).toEqual(['retried']);
  });
});

describe('the code a test ran', () => {
  const at = (i: number) => `2026-02-0${i}T00:00:00Z`;
  const run = (i: number, code: string | undefined, status: HistoryStatus) => ({
    ...record(`r${i}`, at(i), 'a.test.js', { t: status }),
    ...(code !== undefined && { code }),
  });

  it('a test that failed, was edited and then passed is not flaky: a fix is no flake', () => {
    const [h] = testHistories([run(1, 'sha256:a', 'failed'), run(2, 'sha256:b', 'passed')], 10);
    expect(h).toMatchObject({ flaky: false, runs: 1, failed: 0, passStreak: 1 });
  });

  it('failed and passed on the same code is flaky, whatever came before', () => {
    const [h] = testHistories(
      [run(1, 'sha256:a', 'passed'), run(2, 'sha256:b', 'failed'), run(3, 'sha256:b', 'passed')],
      10,
    );
    expect(h).toMatchObject({ flaky: true, runs: 2, failed: 1, passStreak: 1 });
  });

  it('counts the streak and the window under the latest code only', () => {
    const [h] = testHistories(
      [run(1, 'sha256:a', 'passed'), run(2, 'sha256:a', 'passed'), run(3, 'sha256:b', 'passed')],
      10,
    );
    expect(h).toMatchObject({ runs: 1, passStreak: 1 });
  });

  it('groups records of older versions (no code) together, apart from those with one', () => {
    const [h] = testHistories([run(1, undefined, 'failed'), run(2, undefined, 'passed')], 10);
    expect(h.flaky).toBe(true);
    const [after] = testHistories([run(1, undefined, 'failed'), run(2, 'sha256:a', 'passed')], 10);
    expect(after.flaky).toBe(false);
  });

  it('is written with each record and read back by the schema', () => {
    const path = join(folder(), 'history.jsonl');
    const update = updateHistory(path, [run(1, 'sha256:abc', 'passed')], 5);
    expect(update.ok).toBe(true);
    expect(readHistory(path).records[0].code).toBe('sha256:abc');
  });
});

describe('the quarantine in a test result', () => {
  const result = () => ({
    numFailingTests: 2,
    testResults: [
      { ancestorTitles: ['q'], title: 'broken', fullName: 'q broken', status: 'failed' },
      { ancestorTitles: [], title: 'regular', fullName: 'regular', status: 'failed' },
      { ancestorTitles: ['q'], title: 'retried', fullName: 'q retried', status: 'passed', invocations: 2 },
    ],
  });

  it('takes a quarantined failure out of the failure count only; the test stays failed', () => {
    const r = result();
    const { tests, excused } = reportTests(r, { quarantine: ['q › broken'], tags: {}, skipped: {} });
    expect(excused).toBe(1);
    expect(tests).toEqual([
      { name: 'q › broken', status: 'failed', quarantined: true },
      { name: 'regular', status: 'failed' },
      { name: 'q › retried', status: 'flaky' },
    ]);
    expect(r.testResults[0].status).toBe('failed');
  });

  it('takes Jest full names too, and nothing for a name that is not there', () => {
    expect(reportTests(result(), { quarantine: ['q broken'], tags: {}, skipped: {} }).excused).toBe(1);
    expect(reportTests(result(), { quarantine: ['q › brok', 'broken'], tags: {}, skipped: {} }).excused).toBe(
      0,
    );
  });
});

describe('the code key of a test file', () => {
  const project = (root: string, fixture: string) => {
    writeFileSync(join(root, 'a.test.js'), 'it("works", () => {});\n');
    writeFileSync(join(root, 'refunds.fixture.json'), fixture);
    return new Map([
      [join(root, 'refunds.fixture.json'), createHash('sha1').update(fixture).digest('base64')],
    ]);
  };

  it('is the same for the same files in another checkout (a shard on another machine)', () => {
    const [one, two] = [folder(), folder()];
    expect(codeKey(one, join(one, 'a.test.js'), project(one, '[]'))).toBe(
      codeKey(two, join(two, 'a.test.js'), project(two, '[]')),
    );
  });

  it('changes with the test file and with a data file it loaded', () => {
    const root = folder();
    const sources = project(root, '[]');
    const before = codeKey(root, join(root, 'a.test.js'), sources);
    expect(codeKey(root, join(root, 'a.test.js'), project(root, '[{}]'))).not.toBe(before);
    writeFileSync(join(root, 'a.test.js'), 'it("works again", () => {});\n');
    expect(codeKey(root, join(root, 'a.test.js'), sources)).not.toBe(before);
  });
});
