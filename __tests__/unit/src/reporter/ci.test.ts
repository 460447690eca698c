import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { type CaseResult, locate } from '../../../../src/reporter/cases';
import { ciOptionsProblem, reportToCi } from '../../../../src/reporter/ci';
import UnderstudyReporter from '../../../../src/reporter/index';
import { jestCases } from '../../../../src/reporter/jest-cases';
import { LIVE_REPORT, liveTable } from '../../../../src/reporter/live-table';

const KEY = 'sk-proj-CIUNITKEY0123456789abcdefghijklmnopq';

describe('the failing line, from the stack', () => {
  const file = '/repo/test/a.test.js';

  it('is the first frame in the test file (CommonJS paths, ES module URLs, anonymous frames)', () => {
    const stack = [
      'Error: expect(received).toBe(expected)',
      '    at Object.toBe (/repo/node_modules/expect/build/index.js:10:5)',
      '    at helper (/repo/test/helper.js:3:9)',
      `    at ${file}:12:20`,
      `    at Object.<anonymous> (${file}:30:1)`,
    ].join('\n');
    expect(locate(stack, file)).toEqual({ line: 12, column: 20 });
    expect(locate(`Error: x\n    at async ${pathToFileURL(file).href}:7:3`, file)).toEqual({
      line: 7,
      column: 3,
    });
  });

  it('is unknown when no frame is in the test file', () => {
    expect(locate('Error: x\n    at other (/repo/other.js:1:1)', file)).toBeUndefined();
    expect(locate(undefined, file)).toBeUndefined();
  });
});

describe("Jest's results as cases", () => {
  it('reads status, time, message, type and line, and takes the environment’s note (its scrubbed message)', () => {
    const cases = jestCases([
      {
        testFilePath: '/repo/a.test.js',
        testResults: [
          { ancestorTitles: ['d'], title: 'passes', status: 'passed', duration: 5 },
          {
            ancestorTitles: ['d'],
            title: 'fails',
            status: 'failed',
            duration: 7,
            failureMessages: [`Error: got ${KEY}\n    at Object.<anonymous> (/repo/a.test.js:4:10)`],
            failureDetails: [{ name: 'JestAssertionError', message: `got ${KEY}` }],
          },
          { ancestorTitles: [], title: 'todo', status: 'todo' },
        ],
        understudy: { failures: { 'd › fails': { message: 'got [REDACTED]', trace: '/repo/t.trace.json' } } },
      },
      {
        testFilePath: '/repo/b.test.js',
        testResults: [],
        testExecError: { message: 'SyntaxError: nope', stack: '' },
      },
    ]);
    expect(cases).toEqual([
      { file: '/repo/a.test.js', name: 'd › passes', status: 'passed', durationMs: 5 },
      {
        file: '/repo/a.test.js',
        name: 'd › fails',
        status: 'failed',
        durationMs: 7,
        failure: { message: 'got [REDACTED]', type: 'JestAssertionError', line: 4, column: 10 },
        note: { message: 'got [REDACTED]', trace: '/repo/t.trace.json' },
      },
      { file: '/repo/a.test.js', name: 'todo', status: 'skipped' },
      {
        file: '/repo/b.test.js',
        name: '',
        status: 'failed',
        failure: { message: 'SyntaxError: nope', type: 'Error' },
      },
    ]);
  });
});

describe('a failure from no line of the test file', () => {
  it("is placed at the test's own line, which the environment noted", () => {
    const [c] = jestCases([
      {
        testFilePath: '/repo/a.test.js',
        testResults: [
          {
            ancestorTitles: [],
            title: 'unmatched',
            status: 'failed',
            failureMessages: ['UnderstudyError [MODEL_UNMATCHED]: No fixture matched'],
            failureDetails: [{ name: 'UnderstudyError', message: 'No fixture matched' }],
          },
        ],
        understudy: { failures: { unmatched: { testLine: 21 } } },
      },
    ]);
    expect(c.failure).toEqual({ message: 'No fixture matched', type: 'UnderstudyError', line: 21 });
  });
});

describe("the Jest reporter's annotations", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of ['GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'GITHUB_WORKSPACE']) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });

  it("go to standard error when Jest's --json results hold standard output", () => {
    process.env.GITHUB_ACTIONS = 'true';
    delete process.env.GITHUB_STEP_SUMMARY;
    process.env.GITHUB_WORKSPACE = '/repo';
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const results = {
        testResults: [
          {
            testFilePath: '/repo/a.test.js',
            testResults: [
              { ancestorTitles: [], title: 't', status: 'failed', failureMessages: ['Error: x'] },
            ],
          },
        ],
      };
      new UnderstudyReporter({ json: true }, {}).onRunComplete(undefined, results);
      expect(out).not.toHaveBeenCalled();
      expect(err.mock.calls.map(([text]) => String(text)).join('')).toContain(
        '::error file=a.test.js,title=a.test.js › t::Error: x',
      );
      err.mockClear();
      new UnderstudyReporter({ json: true, outputFile: 'results.json' }, {}).onRunComplete(
        undefined,
        results,
      );
      expect(out.mock.calls.map(([text]) => String(text)).join('')).toContain('::error file=a.test.js');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});

describe('reportToCi', () => {
  let dir: string;
  const failing: CaseResult = {
    file: '/repo/a.test.js',
    name: 'fails',
    status: 'failed',
    failure: { message: `leaked ${KEY}`, type: 'Error', line: 3 },
  };
  const summary = { counts: { agentRuns: 0, replayed: 0, unmatched: 0, staleCassettes: 0 } };
  let out: string;
  const write = (text: string) => {
    out += text;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ci-surfaces-'));
    out = '';
  });

  it('writes nothing outside GitHub Actions without the junit option, even with a summary file named', () => {
    const file = join(dir, 'summary.md');
    const problems = reportToCi(
      [failing],
      summary,
      {},
      {
        runner: 'Jest',
        env: { GITHUB_STEP_SUMMARY: file, GITHUB_WORKSPACE: '/repo' },
        cwd: dir,
        write,
      },
    );
    expect(problems).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect(out).toBe('');
  });

  it('under GitHub Actions, appends the summary and writes the annotations, without the key in use', () => {
    const file = join(dir, 'summary.md');
    writeFileSync(file, 'before\n');
    reportToCi(
      [failing],
      summary,
      {},
      {
        runner: 'Jest',
        env: {
          GITHUB_ACTIONS: 'true',
          GITHUB_STEP_SUMMARY: file,
          GITHUB_WORKSPACE: '/repo',
          MY_API_KEY: KEY,
        },
        cwd: dir,
        write,
      },
    );
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('before\n\n## ❌ jest-understudy (Jest): 1 failed, 0 passed')).toBe(true);
    expect(out).toBe('::error file=a.test.js,line=3,title=a.test.js › fails::leaked [REDACTED]\n');
    expect(text).not.toContain(KEY);
  });

  it('writes the JUnit file where the option says, relative to the working directory', () => {
    reportToCi(
      [failing],
      summary,
      { junit: 'reports/junit.xml' },
      { runner: 'Jest', env: {}, cwd: dir, write },
    );
    const xml = readFileSync(join(dir, 'reports', 'junit.xml'), 'utf8');
    expect(xml).toContain('<testcase name="fails"');
    expect(xml).not.toContain(KEY);
  });

  it('says what it could not write, and still writes the rest', () => {
    const blocked = join(dir, 'file');
    writeFileSync(blocked, '');
    const file = join(dir, 'summary.md');
    const problems = reportToCi(
      [failing],
      summary,
      { junit: join(blocked, 'junit.xml') },
      {
        runner: 'Vitest',
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file },
        cwd: dir,
        write,
      },
    );
    expect(problems).toEqual([expect.stringMatching(/^the JUnit report \(.*junit\.xml\) was not written: /)]);
    expect(readFileSync(file, 'utf8')).toContain('jest-understudy (Vitest)');
  });

  it('ends the summary with the live report found in the trace folder', () => {
    const file = join(dir, 'summary.md');
    const live = join(dir, '.understudy', 'traces', LIVE_REPORT);
    const { mkdirSync } = require('node:fs') as typeof import('node:fs');
    mkdirSync(join(dir, '.understudy', 'traces'), { recursive: true });
    writeFileSync(
      live,
      JSON.stringify({ tests: [{ name: 'refunds', runs: 10, passed: 9, minPassRate: 0.8 }] }),
    );
    reportToCi(
      [],
      { ...summary, traceDir: join(dir, '.understudy', 'traces') },
      {},
      {
        runner: 'Jest',
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file },
        cwd: dir,
        write,
      },
    );
    expect(readFileSync(file, 'utf8')).toContain('| refunds | ✅ 90% | 9/10 | 80% |  |');
  });
});

describe('the reporter options', () => {
  it('refuses a junit path that is not a non-empty string, naming the option', () => {
    expect(ciOptionsProblem({ junit: 42 }, 'jest-understudy/reporter')).toBe(
      'jest-understudy/reporter: the `junit` option must be a file path (a non-empty string), got 42',
    );
    expect(ciOptionsProblem({ junit: '' }, 'r')).toMatch(/`junit`/);
    expect(ciOptionsProblem({ junit: 'a.xml', listTraces: 3 }, 'r')).toBeUndefined();
  });
});

describe('the live table', () => {
  it('shows pass rates against their gates and the most frequent trajectories', () => {
    const table = liveTable({
      tests: [
        {
          file: 'a.test.js',
          name: 'refunds | damaged',
          runs: 10,
          passed: 7,
          minPassRate: 0.8,
          trajectories: [
            { tools: ['lookup', 'cancel'], terminal: 'stop', count: 3 },
            { tools: ['lookup', 'refund'], terminal: 'stop', count: 7 },
          ],
        },
        { name: 'greets', runs: 5, passed: 5 },
        { name: 'not a test' },
      ],
    });
    expect(table).toBe(
      [
        '### Live pass rates',
        '| Test | Pass rate | Passed | Gate | Trajectories |',
        '|---|---:|---:|---:|---|',
        '| a.test.js › refunds \\| damaged | ❌ 70% | 7/10 | 80% | 7× lookup → refund (stop)<br>3× lookup → cancel (stop) |',
        '| greets | 100% | 5/5 |  |  |',
      ].join('\n'),
    );
  });

  it('renders nothing for a report that names no test', () => {
    expect(liveTable({})).toBeUndefined();
    expect(liveTable(null)).toBeUndefined();
  });
});
