/**
 * The repository's check of what this example's README shows: suite/ runs three times, as CI
 * would with `jest --randomize`, with the quarantine and history options of ./jest.config.js
 * (the history file in a temp folder). Jest's seed 1234 runs "refunds the rain jacket" before
 * "confirms the refund by email", which then fails; seeds 777 and 31337 do not.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildRun, runJest } from '../../__tests__/support/child-jest';

const { understudy: options } = require('./jest.config.js').testEnvironmentOptions as {
  understudy: { quarantine: string[]; history: Record<string, unknown> };
};

const FILE = 'examples/quarantine/suite/refunds.test.ts';
const FLAKY = 'refunds › confirms the refund by email';
const FIXED = 'refunds › explains that an order was already refunded';

const historyDir = mkdtempSync(join(tmpdir(), 'understudy-quarantine-example-'));
const historyFile = join(historyDir, 'history.jsonl');
const runs: ChildRun[] = [];
let unquarantined: ChildRun;

const runSuite = (seed: number, understudy: Record<string, unknown>) =>
  runJest({
    testMatch: ['examples/quarantine/suite/*.test.ts'],
    understudy,
    reporter: true,
    args: ['--randomize', `--seed=${seed}`, '--maxWorkers=1'],
  });
const summary = (run: ChildRun) => stripVTControlCharacters(run.stderr);
const testNamed = (run: ChildRun, title: string) => {
  const test = run.files.flatMap((f) => f.tests).find((t) => t.fullName === title.replace(' › ', ' '));
  if (!test) throw new Error(`the child Jest ran no test named ${title}:\n${run.stderr}`);
  return test;
};

beforeAll(async () => {
  const configured = { ...options, history: { ...options.history, path: historyFile } };
  // The same failing order without the quarantine, and without a history of its own.
  const control = runSuite(1234, { quarantine: [], history: false });
  for (const seed of [1234, 777, 31337]) runs.push(await runSuite(seed, configured));
  unquarantined = await control;
}, 120_000);

afterAll(() => {
  for (const run of [...runs, unquarantined]) if (run) rmSync(run.dir, { recursive: true, force: true });
  rmSync(historyDir, { recursive: true, force: true });
});

describe('the quarantine', () => {
  it('runs the flaky test and reports it failed, without failing the run', () => {
    const flaky = testNamed(runs[0], FLAKY);
    // Seed 1234 is Jest's shuffle putting the rain-jacket test first; another Jest may need another seed.
    expect(flaky.status).toBe('failed');
    // The rain-jacket test ran first and took msg_1.
    expect(flaky.failureMessages.join('')).toContain('"messageId": "msg_2"');
    expect(runs[0].code).toBe(0);
    expect(summary(runs[0])).toContain('2 quarantined tests: 1 failed (not failing the run)');
    expect(summary(runs[0])).toContain(`✕ ${FLAKY} (${FILE}) failed`);
    expect(summary(runs[0])).toContain(`✓ ${FIXED} (${FILE}) passed`);
  });

  it('no false green: the same order without the quarantine fails the run', () => {
    expect(testNamed(unquarantined, FLAKY).status).toBe('failed');
    expect(testNamed(unquarantined, 'refunds › refunds the rain jacket').status).toBe('passed');
    expect(unquarantined.code).toBe(1);
  });

  it('reports the fixed test ready to leave after readyAfter runs in a row, not before', () => {
    expect(options.history.readyAfter).toBe(3);
    expect(summary(runs[0])).not.toContain('ready to leave');
    expect(summary(runs[1])).not.toContain('ready to leave');
    expect(summary(runs[2])).toContain(
      `✓ ${FIXED} (${FILE}) passed: passed 3 runs in a row, ready to leave the quarantine`,
    );
    // The flaky test passed the last two runs only.
    expect(summary(runs[2])).toContain(`✓ ${FLAKY} (${FILE}) passed\n`);
  });
});

describe('the history', () => {
  it('prints the flake rate of a test that passed and failed in recent runs', () => {
    expect(summary(runs[0])).not.toContain('flaky test');
    expect(testNamed(runs[1], FLAKY).status).toBe('passed');
    expect(summary(runs[1])).toContain(
      `1 flaky test in recent runs\n    ${FLAKY} (${FILE}): failed 1 of 2 runs (50%)`,
    );
    expect(summary(runs[2])).toContain(
      `1 flaky test in recent runs\n    ${FLAKY} (${FILE}): failed 1 of 3 runs (33%)`,
    );
  });

  it('warns that jest.retryTimes masks the flake rate', () => {
    for (const run of runs)
      expect(summary(run)).toContain(
        'retries mask the flake rate: jest.retryTimes in 1 file, 0 tests passed only on a retry',
      );
  });

  it('keeps one line per test file and run in the file the history option names', () => {
    const records = readFileSync(historyFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records).toHaveLength(6);
    const refunds = records.filter((r) => r.file === FILE);
    expect(refunds.map((r) => r.tests.find((t: { name: string }) => t.name === FLAKY))).toEqual([
      { name: FLAKY, status: 'failed', quarantined: true },
      { name: FLAKY, status: 'passed', quarantined: true },
      { name: FLAKY, status: 'passed', quarantined: true },
    ]);
    expect(new Set(records.map((r) => r.run)).size).toBe(3);
  });
});
