/**
 * The report of an `understudy live --repeat N` run, from its ledger (./ledger.ts): per test, the
 * completed runs and their pass rate against the test's gate, the distinct trajectories with
 * their counts, latency, token and cost percentiles, and the drift from the test's cassette.
 * Its shape is ./report.schema.ts.
 */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { loadFixtures } from '../fixtures/load';
import type { Fixture } from '../fixtures/types';
import { schemaValidator } from '../validators';
import { driftOf } from './drift';
import type { BudgetCap, LedgerLine, Spend, TestLine } from './ledger';
import { LIVE_REPORT_FORMAT, liveReportSchema } from './report.schema';
import { recordedTrajectory, type Trajectory, trajectoryKey } from './trajectory';

export interface Percentiles {
  p50: number;
  p90: number;
  max: number;
}

export interface ReportTrajectory {
  tools: string[];
  terminal: string;
}

export interface TestReport {
  file: string;
  name: string;
  runs: number;
  passed: number;
  failed: number;
  stopped: number;
  notRun: number;
  passRate: number | null;
  minPassRate: number;
  gate: 'passed' | 'failed' | 'not-run';
  trajectories: Array<ReportTrajectory & { count: number }>;
  latencyMs: Percentiles | null;
  tokens: Percentiles | null;
  usd: Percentiles | null;
  drift: {
    cassette: string;
    recorded: ReportTrajectory | null;
    score: number | null;
    changes: string[];
    refreshed?: boolean;
  };
}

export interface LiveReport {
  format: typeof LIVE_REPORT_FORMAT;
  at: string;
  runner: 'jest' | 'vitest';
  repeat: number;
  repetitions: number;
  minPassRate: number;
  budget: BudgetCap & { spentTokens: number; spentUsd: number; unpriced: string[]; reached?: string };
  tests: TestReport[];
  refresh?: { above: number; tests: string[]; cassettes: string[]; exitCode: number };
  exitCode: number;
}

/** Nearest-rank percentiles; null for no values. */
export function percentiles(values: readonly number[]): Percentiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return { p50: round(at(0.5)), p90: round(at(0.9)), max: round(sorted.at(-1)!) };
}

const plain = (t: Trajectory): ReportTrajectory => ({
  tools: t.tools.map((s) => s.tool),
  terminal: t.terminal,
});
const keyOf = (file: string, test: string | undefined) => `${file}\u0000${test ?? ''}`;

export interface ReportInput {
  lines: readonly LedgerLine[];
  runner: 'jest' | 'vitest';
  repeat: number;
  repetitions: number;
  minPassRate: number;
  cap: BudgetCap;
  spend: Spend;
  reached: string | undefined;
  /** Paths in the report are relative to it. */
  cwd: string;
}

/** The fixtures of each cassette, read once; an unreadable cassette gives its problem instead. */
function cassettes(): (path: string) => Fixture[] | string {
  const read = new Map<string, Fixture[] | string>();
  return (path) => {
    let got = read.get(path);
    if (got === undefined) {
      try {
        got = existsSync(path) ? loadFixtures(path) : 'no cassette';
      } catch (error) {
        got = `the cassette cannot be read: ${(error as Error)?.message ?? error}`;
      }
      read.set(path, got);
    }
    return got;
  };
}

export function buildReport(input: ReportInput): LiveReport {
  const { lines, cwd } = input;
  const rel = (p: string) => relative(cwd, p).split('\\').join('/') || p;
  const refused = new Set(
    lines.filter((l) => l.kind === 'refused').map((l) => `${l.repeat}\u0000${keyOf(l.file, l.test)}`),
  );
  const gates = new Map<string, number>();
  for (const l of lines) if (l.kind === 'gate') gates.set(keyOf(l.file, l.test), l.minPassRate);
  const byTest = new Map<string, TestLine[]>();
  for (const l of lines) {
    if (l.kind !== 'test') continue;
    const key = keyOf(l.file, l.test);
    byTest.set(key, [...(byTest.get(key) ?? []), l]);
  }
  const readCassette = cassettes();
  const tests: TestReport[] = [];
  for (const [key, runs] of byTest) {
    const { file, test, cassette } = runs[0]!;
    const completed = runs.filter((r) => !refused.has(`${r.repeat}\u0000${key}`));
    const stopped = runs.length - completed.length;
    const passed = completed.filter((r) => r.status === 'passed').length;
    const minPassRate = gates.get(key) ?? input.minPassRate;
    const passRate = completed.length === 0 ? null : passed / completed.length;
    const counted = new Map<string, { trajectory: ReportTrajectory; count: number }>();
    for (const r of completed) {
      const k = trajectoryKey(r.trajectory);
      const entry = counted.get(k) ?? { trajectory: plain(r.trajectory), count: 0 };
      entry.count++;
      counted.set(k, entry);
    }
    const spendOfRun = (r: TestLine) => {
      const calls = lines.filter(
        (l) => l.kind === 'call' && l.repeat === r.repeat && l.file === r.file && l.test === r.test,
      );
      const tokens = calls.reduce((n, l) => n + (l.kind === 'call' ? l.tokens.total : 0), 0);
      const priced = calls.every((l) => l.kind === 'call' && l.usd !== undefined);
      const usd = calls.reduce((n, l) => n + (l.kind === 'call' ? (l.usd ?? 0) : 0), 0);
      return { tokens, usd: priced ? usd : undefined };
    };
    const spends = completed.map(spendOfRun);
    const usd = spends.every((s) => s.usd !== undefined) ? spends.map((s) => s.usd!) : [];
    tests.push({
      file: rel(file),
      name: test,
      runs: completed.length,
      passed,
      failed: completed.length - passed,
      stopped,
      notRun: Math.max(0, input.repeat - runs.length),
      passRate: passRate === null ? null : Math.round(passRate * 1e4) / 1e4,
      minPassRate,
      gate: passRate === null ? 'not-run' : passRate >= minPassRate ? 'passed' : 'failed',
      trajectories: [...counted.values()]
        .sort((a, b) => b.count - a.count)
        .map(({ trajectory, count }) => ({ ...trajectory, count })),
      latencyMs: percentiles(completed.map((r) => Math.round(r.durationMs))),
      tokens: percentiles(spends.map((s) => s.tokens)),
      usd: percentiles(usd),
      drift: driftFor(readCassette(cassette), rel(cassette), test, completed),
    });
  }
  tests.sort((a, b) => (a.file === b.file ? (a.name < b.name ? -1 : 1) : a.file < b.file ? -1 : 1));
  const failedGate = tests.some((t) => t.gate === 'failed');
  const report: LiveReport = {
    format: LIVE_REPORT_FORMAT,
    at: new Date().toISOString(),
    runner: input.runner,
    repeat: input.repeat,
    repetitions: input.repetitions,
    minPassRate: input.minPassRate,
    budget: {
      ...input.cap,
      spentTokens: input.spend.tokens,
      spentUsd: Math.round(input.spend.usd * 1e6) / 1e6,
      unpriced: input.spend.unpriced,
      ...(input.reached !== undefined && { reached: input.reached }),
    },
    tests,
    exitCode: failedGate ? 1 : input.reached !== undefined ? 3 : 0,
  };
  return report;
}

function driftFor(
  fixtures: Fixture[] | string,
  cassette: string,
  test: string,
  runs: readonly TestLine[],
): TestReport['drift'] {
  if (typeof fixtures === 'string') return { cassette, recorded: null, score: null, changes: [fixtures] };
  const own = fixtures.filter((f) => f.metadata?.test === test);
  if (own.length === 0)
    return { cassette, recorded: null, score: null, changes: ['the cassette has no recording of this test'] };
  const recorded = recordedTrajectory(own);
  const drift = driftOf(
    recorded,
    runs.map((r) => r.trajectory),
  );
  return {
    cassette,
    recorded: plain(recorded),
    score: runs.length === 0 ? null : drift.score,
    changes: drift.changes,
  };
}

/** The report's problems against its schema, in words; [] when it is valid. */
export function reportProblems(report: unknown): string[] {
  const validate = schemaValidator('live-report', liveReportSchema, 'validateLiveReport');
  if (validate(report)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '$'} ${e.message ?? 'is invalid'}`);
}
