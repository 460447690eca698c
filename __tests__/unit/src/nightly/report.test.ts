/**
 * The live report from a ledger: pass rates against each test's gate, runs the budget stopped
 * or never started, trajectory counts, percentiles, drift from the cassette, exit codes, and
 * the report checked against its schema.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { renderLiveReport } from '../../../../src/nightly/html';
import type { LedgerLine, TestLine } from '../../../../src/nightly/ledger';
import { buildReport, percentiles, reportProblems } from '../../../../src/nightly/report';
import { liveTable } from '../../../../src/reporter/live-table';

const dir = mkdtempSync(join(tmpdir(), 'live-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'orders.test.js');
const cassette = join(dir, 'orders.test.js.cassette.json');
writeFileSync(
  cassette,
  JSON.stringify({
    fixtures: [
      {
        match: { userMessage: 'Where?' },
        response: { toolCalls: [{ name: 'lookup_order', arguments: '{"orderId":"A"}' }] },
        metadata: { test: 'finds the order' },
      },
      {
        match: { hasToolResult: true },
        response: { content: 'Shipped.' },
        metadata: { test: 'finds the order' },
      },
    ],
  }),
);

const step = (tool: string) => ({ tool, shape: '{orderId:string}' });
const run = (repeat: number, test: string, passed: boolean, tool: string, durationMs: number): TestLine => ({
  kind: 'test',
  repeat,
  file,
  test,
  status: passed ? 'passed' : 'failed',
  durationMs,
  trajectory: { tools: [step(tool)], terminal: 'stop' },
  cassette,
  traceDir: dir,
});
const call = (repeat: number, test: string, total: number, usd?: number): LedgerLine => ({
  kind: 'call',
  repeat,
  file,
  test,
  provider: 'openai',
  model: 'gpt',
  tokens: { input: total - 10, output: 10, total },
  ...(usd !== undefined && { usd }),
});

const base = {
  runner: 'jest' as const,
  repeat: 3,
  repetitions: 3,
  minPassRate: 0.9,
  cap: {},
  spend: { tokens: 0, usd: 0, unpriced: [] },
  reached: undefined,
  cwd: dir,
};

describe('buildReport', () => {
  const lines: LedgerLine[] = [
    run(1, 'finds the order', true, 'lookup_order', 100),
    call(1, 'finds the order', 80, 0.002),
    run(2, 'finds the order', true, 'lookup_order', 300),
    call(2, 'finds the order', 80, 0.002),
    run(3, 'finds the order', false, 'lookup_refund', 200),
    call(3, 'finds the order', 90, 0.003),
    { kind: 'gate', repeat: 1, file, test: 'gated', minPassRate: 0.3 },
    run(1, 'gated', false, 'lookup_order', 10),
    run(2, 'gated', true, 'lookup_order', 10),
    run(3, 'gated', false, 'lookup_order', 10),
  ];
  const report = buildReport({ ...base, lines });
  const order = report.tests.find((t) => t.name === 'finds the order')!;

  it('gives each test its pass rate, its gate and its trajectories counted', () => {
    expect(order).toEqual(
      expect.objectContaining({ file: 'orders.test.js', runs: 3, passed: 2, failed: 1, passRate: 0.6667 }),
    );
    expect([order.minPassRate, order.gate]).toEqual([0.9, 'failed']);
    expect(order.trajectories).toEqual([
      { tools: ['lookup_order'], terminal: 'stop', count: 2 },
      { tools: ['lookup_refund'], terminal: 'stop', count: 1 },
    ]);
    expect(order.latencyMs).toEqual({ p50: 200, p90: 300, max: 300 });
    expect(order.tokens).toEqual({ p50: 80, p90: 90, max: 90 });
    expect(order.usd).toEqual({ p50: 0.002, p90: 0.003, max: 0.003 });
    expect(report.exitCode).toBe(1);
  });

  it("renders in the job summary's live table as the reporter reads it", () => {
    const table = liveTable(report) ?? '';
    expect(table).toContain('2/3');
    expect(table).toContain('2× lookup\\_order (stop)');
    expect(table).toContain('1× lookup\\_refund (stop)');
  });

  it("takes a test's own gate over --min-pass-rate", () => {
    const gated = report.tests.find((t) => t.name === 'gated')!;
    expect([gated.passRate, gated.minPassRate, gated.gate]).toEqual([0.3333, 0.3, 'passed']);
  });

  it('scores drift against the cassette’s recording of the test, or says there is none', () => {
    expect(order.drift).toEqual({
      cassette: 'orders.test.js.cassette.json',
      recorded: { tools: ['lookup_order'], terminal: 'stop' },
      score: 0.183,
      changes: ['lookup_order not called in 1 of 3 runs', 'lookup_refund called in 1 of 3 runs'],
    });
    expect(report.tests.find((t) => t.name === 'gated')!.drift.changes).toEqual([
      'the cassette has no recording of this test',
    ]);
  });

  it('leaves the runs the budget stopped out of the rate, and counts the runs never started', () => {
    const stopped = buildReport({
      ...base,
      repeat: 4,
      repetitions: 2,
      minPassRate: 1,
      reached: '120 tokens spent, the cap is 100',
      lines: [
        run(1, 'finds the order', true, 'lookup_order', 10),
        run(2, 'finds the order', false, 'lookup_order', 10),
        { kind: 'refused', repeat: 2, file, test: 'finds the order' },
      ],
    });
    const test = stopped.tests[0]!;
    expect([test.runs, test.passed, test.stopped, test.notRun, test.gate]).toEqual([1, 1, 1, 2, 'passed']);
    expect(stopped.exitCode).toBe(3);
    expect(stopped.budget.reached).toBe('120 tokens spent, the cap is 100');
  });

  it('has no cost percentiles when a model had no price', () => {
    const unpriced = buildReport({
      ...base,
      lines: [run(1, 'finds the order', true, 'lookup_order', 10), call(1, 'finds the order', 80)],
    });
    expect(unpriced.tests[0]!.usd).toBeNull();
  });

  it('matches its schema, which refuses what it does not describe', () => {
    expect(reportProblems(report)).toEqual([]);
    expect(reportProblems({ ...report, tests: [{ ...order, passRate: 1.5 }] })).not.toEqual([]);
    expect(reportProblems({ ...report, extra: true })).toEqual(['$ must NOT have additional properties']);
  });

  it('renders a page that escapes what it shows', () => {
    const page = renderLiveReport({ ...report, tests: [{ ...order, name: '<b>finds</b>' }] });
    expect(page).toContain('&lt;b&gt;finds&lt;/b&gt;');
    expect(page).toContain('66.7% &lt; 90%');
  });
});

describe('percentiles', () => {
  it('are nearest-rank, and null for no values', () => {
    expect(percentiles([5, 1, 3, 2, 4, 6, 7, 8, 9, 10])).toEqual({ p50: 5, p90: 9, max: 10 });
    expect(percentiles([])).toBeNull();
  });
});
