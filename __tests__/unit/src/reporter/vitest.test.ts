import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import UnderstudyVitestReporter, {
  inThisCheckout,
  type TestModuleLike,
  vitestCases,
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

describe("Vitest's results as the CI surfaces' cases", () => {
  const failingModule = (): TestModuleLike => ({
    moduleId: '/project/a.test.ts',
    meta: () => ({
      understudy: {
        failures: { 'd › fails': { trace: '/project/t.trace.json', message: 'scrubbed [REDACTED]' } },
      },
    }),
    errors: () => [
      {
        name: 'Error',
        message: 'afterAll broke',
        stack: 'Error: afterAll broke\n    at /project/a.test.ts:30:3',
      },
    ],
    children: {
      allTests: () => [
        {
          type: 'test',
          name: 'fails',
          parent: { type: 'suite', name: 'd', parent: { type: 'module' } },
          result: () => ({
            state: 'failed',
            errors: [
              {
                name: 'AssertionError',
                message: 'expected 1 to be 2',
                stack: 'AssertionError: x\n    at /project/a.test.ts:12:7',
              },
            ],
          }),
          diagnostic: () => ({ duration: 8 }),
        },
        {
          type: 'test',
          name: 'passes',
          parent: { type: 'module' },
          result: () => ({ state: 'passed' }),
          diagnostic: () => ({ duration: 2 }),
        },
      ],
      allSuites: () => [],
    },
  });

  it('reads status, time, the failing line, the error type and the note; a module error is a case of its own', () => {
    expect(vitestCases([failingModule()])).toEqual([
      {
        file: '/project/a.test.ts',
        name: 'd › fails',
        status: 'failed',
        durationMs: 8,
        failure: { message: 'scrubbed [REDACTED]', type: 'AssertionError', line: 12, column: 7 },
        note: { trace: '/project/t.trace.json', message: 'scrubbed [REDACTED]' },
      },
      { file: '/project/a.test.ts', name: 'passes', status: 'passed', durationMs: 2 },
      {
        file: '/project/a.test.ts',
        name: '',
        status: 'failed',
        failure: { message: 'afterAll broke', type: 'Error', line: 30, column: 3 },
      },
    ]);
  });

  it("the plugin's reporter stands aside for one the config names, in the same Vitest only", () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const vitest = {};
      const named = new UnderstudyVitestReporter({});
      const plugin = new UnderstudyVitestReporter({ addedBy: 'jest-understudy/vitest' } as never);
      named.onInit(vitest);
      plugin.onInit(vitest);
      const modules = [module([{ name: 't', state: 'passed' }], report())];
      plugin.onTestRunEnd(modules);
      expect(write).not.toHaveBeenCalled();
      named.onTestRunEnd(modules);
      expect(write).toHaveBeenCalledTimes(1);
      const alone = new UnderstudyVitestReporter({ addedBy: 'jest-understudy/vitest' } as never);
      alone.onInit({});
      alone.onTestRunEnd(modules);
      expect(write).toHaveBeenCalledTimes(2);
    } finally {
      write.mockRestore();
    }
  });

  it("places a failure from no line of the test file at the test's location", () => {
    const [c] = vitestCases([
      {
        moduleId: '/project/a.test.ts',
        meta: () => ({}),
        children: {
          allTests: () => [
            {
              type: 'test',
              name: 'unmatched',
              parent: { type: 'module' },
              location: { line: 14, column: 3 },
              result: () => ({
                state: 'failed',
                errors: [{ name: 'UnderstudyError', message: 'No fixture matched' }],
              }),
            },
          ],
        },
      },
    ]);
    expect(c.failure).toEqual({
      message: 'No fixture matched',
      type: 'UnderstudyError',
      line: 14,
      column: 3,
    });
  });

  it('refuses a junit option that is not a path, naming the reporter', () => {
    expect(() => new UnderstudyVitestReporter({ junit: 1 } as never)).toThrow(
      'jest-understudy/vitest/reporter: the `junit` option must be a file path (a non-empty string), got 1',
    );
  });
});
