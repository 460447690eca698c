import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import UnderstudyVitestReporter, {
  inThisCheckout,
  type TestModuleLike,
} from '../../../../src/reporter/vitest';

interface FakeTest {
  name: string;
  state: string;
  note?: string;
  suite?: string;
  retryCount?: number;
}

/** A module as Vitest's reporter API hands it over, with the file's report on its meta. */
function module(tests: FakeTest[], report: object | undefined, errors: unknown[] = []): TestModuleLike {
  return {
    moduleId: '/project/a.test.ts',
    meta: () => (report ? { understudy: report } : {}),
    errors: () => errors,
    children: {
      allTests: () =>
        tests.map((t) => ({
          type: 'test',
          name: t.name,
          parent: t.suite ? { type: 'suite', name: t.suite, parent: { type: 'module' } } : { type: 'module' },
          result: () => ({ state: t.state, ...(t.note && { note: t.note }) }),
          diagnostic: () => ({ retryCount: t.retryCount ?? 0 }),
        })),
      allSuites: () => [],
    },
  };
}

const report = (quarantine: string[] = []) => ({
  agentRuns: 1,
  replayed: { openai: 1 },
  operations: 0,
  unmatched: 0,
  staleCassettes: [],
  traces: [],
  quarantine,
  tags: {},
  skipped: {},
  rootDir: '/project',
});

describe('the Vitest reporter', () => {
  let written = '';
  beforeEach(() => {
    written = '';
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written += String(chunk);
      return true;
    });
    process.exitCode = 1; // as Vitest sets it before calling its reporters when a test failed
  });
  afterEach(() => {
    jest.restoreAllMocks();
    process.exitCode = undefined;
  });

  it('leaves a run whose only failures are quarantined out of the exit code', () => {
    new UnderstudyVitestReporter().onTestRunEnd(
      [
        module(
          [
            { name: 'flaky', state: 'failed' },
            { name: 'ok', state: 'passed' },
          ],
          report(['flaky']),
        ),
      ],
      [],
      'failed',
    );
    expect(process.exitCode).toBe(0);
    expect(written).toContain('1 quarantined test: 1 failed (not failing the run)');
  });

  it.each([
    [
      'a failure not quarantined',
      [
        { name: 'flaky', state: 'failed' },
        { name: 'other', state: 'failed' },
      ],
      [],
      [],
    ],
    ['an error outside the tests', [{ name: 'flaky', state: 'failed' }], [new Error('afterAll')], []],
    ['an unhandled error', [{ name: 'flaky', state: 'failed' }], [], [new Error('unhandled')]],
  ])('keeps the run failed for %s', (_, tests, moduleErrors, unhandled) => {
    new UnderstudyVitestReporter().onTestRunEnd(
      [module(tests as FakeTest[], report(['flaky']), moduleErrors)],
      unhandled,
      'failed',
    );
    expect(process.exitCode).toBe(1);
  });

  it('reports a test that skipped itself with its note as the reason (live() outside live mode)', () => {
    new UnderstudyVitestReporter().onTestRunEnd(
      [
        module(
          [
            {
              name: 'asks the model',
              state: 'skipped',
              note: 'live() runs only in live mode',
              suite: 'live',
            },
          ],
          report(),
        ),
      ],
      [],
      'passed',
    );
    expect(written).toContain('live › asks the model (a.test.ts): live() runs only in live mode');
  });

  it("warns that Vitest's retry option masks the flake rate, naming it and the test that passed on a retry", () => {
    new UnderstudyVitestReporter().onTestRunEnd(
      [
        module(
          [
            { name: 'passes on the second attempt', state: 'passed', retryCount: 1 },
            { name: 'steady', state: 'passed' },
          ],
          { ...report(), retryTimes: 2 },
        ),
      ],
      [],
      'passed',
    );
    expect(written).toContain(
      "retries mask the flake rate: Vitest's retry option in 1 file, 1 test passed only on a retry",
    );
    expect(written).toContain('    passes on the second attempt (a.test.ts)');
    expect(written).not.toContain('jest.retryTimes');
  });

  it("records a file run under the shard's own identity, in this checkout's history (--merge-reports)", () => {
    const here = mkdtempSync(join(tmpdir(), 'understudy-merge-'));
    const shard = {
      ...report(),
      rootDir: '/machine-1/project',
      history: { path: '/machine-1/project/.understudy/history.jsonl', keep: 20, readyAfter: 10 },
      code: 'sha256:abc',
      run: 'shard-run-1',
      at: '2026-01-01T00:00:00.000Z',
    };
    const merged = {
      ...module([{ name: 'passes', state: 'passed' }], shard),
      moduleId: '/machine-1/project/a.test.ts',
      project: { config: { root: here } },
    };
    new UnderstudyVitestReporter().onTestRunEnd([merged], [], 'passed');
    const records = readFileSync(join(here, '.understudy', 'history.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(records.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ run: 'shard-run-1', at: '2026-01-01T00:00:00.000Z', file: 'a.test.ts' }),
    ]);
  });
});

describe('a report from another checkout', () => {
  const history = { path: '/m1/p/.understudy/history.jsonl', keep: 20, readyAfter: 10 };

  it('moves its history file to the same place under this root', () => {
    expect(inThisCheckout({ rootDir: '/m1/p', history }, '/m3/q').history?.path).toBe(
      join('/m3/q', '.understudy', 'history.jsonl'),
    );
  });

  it('leaves a report of this checkout, or a history file outside the checkout, where it is', () => {
    expect(inThisCheckout({ rootDir: '/m1/p', history }, '/m1/p').history?.path).toBe(history.path);
    const outside = { ...history, path: '/shared/history.jsonl' };
    expect(inThisCheckout({ rootDir: '/m1/p', history: outside }, '/m3/q').history?.path).toBe(outside.path);
    expect(inThisCheckout({ rootDir: '/m1/p', history }, undefined).history?.path).toBe(history.path);
  });
});
