/**
 * `jest-understudy/reporter`: after the run, a short summary of what the suite asked of
 * jest-understudy — agent runs, model calls replayed (per provider), tool operations,
 * unmatched requests, stale cassettes, traces written; in record modes, the calls recorded
 * (per provider) and the cassettes written, with the fixtures added, removed and unchanged. Prints nothing when the suite
 * used none of it. The counts come from each test file's result (`testResult.understudy`,
 * attached by the preset's test runner), so they add up across workers; with `--shard`
 * each shard reports its own files.
 */
import { randomUUID } from 'node:crypto';
import { relative, sep } from 'node:path';
import type { FailureNote } from './cases';
import { type CiOptions, ciOptionsProblem, type RunFacts, reportToCi } from './ci';
import { flaky, type HistoryRecord, type HistoryTest, testHistories, updateHistory } from './history';
import { HISTORY_FORMAT } from './history.schema';
import { type JestFileLike, jestCases } from './jest-cases';
import type { ReportedTest } from './results';

/** A cassette a test file wrote, and what changed in it. */
export interface CassetteReport {
  path: string;
  state: 'new' | 'updated' | 'unchanged';
  added: number;
  removed: number;
  unchanged: number;
  kept: number;
}

/** What the environment reports per test file (see environment/jest/index.ts). */
export interface FileReport {
  agentRuns: number;
  replayed: Record<string, number>;
  operations: number;
  unmatched: number;
  staleCassettes: string[];
  traces: string[];
  /** What the CI surfaces show of each failed test, by `describe › test`. */
  failures?: Record<string, FailureNote>;
  /** The trace folder of the file's project. */
  traceDir?: string;
  recorded?: Record<string, number>;
  cassettes?: CassetteReport[];
  /** Each test's status, tags and quarantine (see ./results.ts). */
  tests?: ReportedTest[];
  history?: { path: string; keep: number; readyAfter: number };
  /** What the file's tests ran (the test file and the data files it loaded), the key of their history. */
  code?: string;
  rootDir?: string;
  retryTimes?: number;
  /**
   * This file run's own identity and time in the history, from a runner that can report one file
   * run twice (Vitest's `--merge-reports` reports what the shards ran): the record is then the
   * shard's, and counts once. Otherwise the reporter's run and time stand for every file.
   */
  run?: string;
  at?: string;
}

/** A test the summary names, with the file it is in. */
export interface NamedTest extends ReportedTest {
  file: string;
}

export interface TagCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export interface SuiteSummary {
  files: number;
  agentRuns: number;
  replayed: Record<string, number>;
  replayedTotal: number;
  recorded: Record<string, number>;
  recordedTotal: number;
  cassettes: CassetteReport[];
  operations: number;
  unmatched: number;
  staleCassettes: string[];
  traces: string[];
  /** Results per tag, the tags in order of name. */
  byTag: Record<string, TagCounts>;
  quarantined: NamedTest[];
  /** Tests jest-understudy skipped, with the reason. */
  skipped: NamedTest[];
  /** Files that retry failing tests (Jest's `jest.retryTimes`, Vitest's `retry`), and tests that passed only on a retry. */
  retryFiles: string[];
  passedOnRetry: NamedTest[];
  /** The first file's trace folder (where `understudy live` puts its report). */
  traceDir?: string;
  /** This run's history records, per history file. */
  history: Map<string, { keep: number; readyAfter: number; records: HistoryRecord[] }>;
}

/** What the history says after this run's records went in. */
export interface HistoryReport {
  path: string;
  flaky: Array<{ file: string; name: string; runs: number; failed: number }>;
  /** Quarantined tests that passed `readyAfter` runs in a row. */
  ready: Array<{ file: string; name: string; streak: number }>;
  /** Why the file was not updated (locked, lines not ours). */
  problem?: string;
}

export interface ReporterOptions extends CiOptions {
  /** Trace paths listed under the summary (default 5; 0 lists none). */
  listTraces?: number;
  /** Force colors on or off (default: when stderr is a terminal and NO_COLOR is unset). */
  color?: boolean;
}

export interface ResultLike {
  testFilePath?: string;
  understudy?: Partial<FileReport>;
}

const posix = (path: string) => path.split(sep).join('/');

/** Adds up the file reports found in Jest's aggregated results. */
export function summarize(testResults: readonly ResultLike[]): SuiteSummary {
  const sum: SuiteSummary = {
    files: 0,
    agentRuns: 0,
    replayed: {},
    replayedTotal: 0,
    recorded: {},
    recordedTotal: 0,
    cassettes: [],
    operations: 0,
    unmatched: 0,
    staleCassettes: [],
    traces: [],
    byTag: {},
    quarantined: [],
    skipped: [],
    retryFiles: [],
    passedOnRetry: [],
    history: new Map(),
  };
  const stale = new Set<string>();
  const run = randomUUID();
  const at = new Date().toISOString();
  for (const result of testResults) {
    const r = result.understudy;
    if (!r || typeof r !== 'object') continue;
    sum.files++;
    sum.agentRuns += num(r.agentRuns);
    for (const [provider, n] of Object.entries(r.replayed ?? {})) {
      sum.replayed[provider] = (sum.replayed[provider] ?? 0) + num(n);
      sum.replayedTotal += num(n);
    }
    for (const [provider, n] of Object.entries(r.recorded ?? {})) {
      sum.recorded[provider] = (sum.recorded[provider] ?? 0) + num(n);
      sum.recordedTotal += num(n);
    }
    for (const c of r.cassettes ?? []) if (c && typeof c.path === 'string') sum.cassettes.push(c);
    sum.operations += num(r.operations);
    sum.unmatched += num(r.unmatched);
    for (const file of r.staleCassettes ?? []) stale.add(file);
    sum.traces.push(...(r.traces ?? []));
    if (typeof r.traceDir === 'string' && sum.traceDir === undefined) sum.traceDir = r.traceDir;
    const path = result.testFilePath ?? '';
    const file = r.rootDir && path ? posix(relative(r.rootDir, path)) : posix(path);
    const tests = Array.isArray(r.tests) ? r.tests : [];
    for (const t of tests) {
      const named = { ...t, file };
      for (const tag of t.tags ?? []) {
        sum.byTag[tag] ??= { passed: 0, failed: 0, skipped: 0 };
        const counts = sum.byTag[tag];
        if (t.status === 'failed') counts.failed++;
        else if (t.status === 'skipped') counts.skipped++;
        else counts.passed++;
      }
      if (t.quarantined) sum.quarantined.push(named);
      if (t.status === 'skipped' && t.reason) sum.skipped.push(named);
      if (t.status === 'flaky') sum.passedOnRetry.push(named);
    }
    if (num(r.retryTimes) > 0) sum.retryFiles.push(file);
    const ran = tests.filter((t) => t.status !== 'skipped');
    if (r.history && typeof r.history.path === 'string' && ran.length > 0) {
      const entry = sum.history.get(r.history.path) ?? { ...r.history, records: [] };
      entry.records.push({
        format: HISTORY_FORMAT,
        run: typeof r.run === 'string' && r.run !== '' ? r.run : run,
        at: typeof r.at === 'string' && r.at !== '' ? r.at : at,
        file,
        ...(typeof r.code === 'string' && r.code !== '' && { code: r.code }),
        tests: ran.map(
          (t): HistoryTest => ({
            name: t.name,
            status: t.status as HistoryTest['status'],
            ...(t.quarantined && { quarantined: true }),
          }),
        ),
      });
      sum.history.set(r.history.path, entry);
    }
  }
  sum.staleCassettes = [...stale].sort();
  sum.byTag = Object.fromEntries(Object.entries(sum.byTag).sort(([a], [b]) => a.localeCompare(b)));
  return sum;
}

/** Adds the run's records to each history file and reads back flaky and ready-to-leave tests. */
export function recordHistory(s: SuiteSummary): HistoryReport[] {
  const reports: HistoryReport[] = [];
  for (const [path, { keep, readyAfter, records }] of s.history) {
    const update = updateHistory(path, records, keep);
    const histories = testHistories(update.records, keep);
    const byKey = new Map(histories.map((h) => [`${h.file}\u0000${h.name}`, h]));
    const ready: HistoryReport['ready'] = [];
    for (const t of s.quarantined) {
      const h = byKey.get(`${t.file}\u0000${t.name}`);
      if (h && t.status === 'passed' && h.passStreak >= readyAfter)
        ready.push({ file: t.file, name: t.name, streak: h.passStreak });
    }
    reports.push({
      path,
      flaky: flaky(histories).map(({ file, name, runs, failed }) => ({ file, name, runs, failed })),
      ready,
      ...(!update.ok && { problem: update.reason }),
    });
  }
  return reports;
}

const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

/** Whether the suite used jest-understudy at all. */
export function isEmpty(s: SuiteSummary): boolean {
  return (
    s.agentRuns === 0 &&
    s.replayedTotal === 0 &&
    s.recordedTotal === 0 &&
    s.cassettes.length === 0 &&
    s.operations === 0 &&
    s.unmatched === 0 &&
    s.staleCassettes.length === 0 &&
    s.traces.length === 0 &&
    Object.keys(s.byTag).length === 0 &&
    s.quarantined.length === 0 &&
    s.skipped.length === 0 &&
    s.retryFiles.length === 0 &&
    s.passedOnRetry.length === 0
  );
}

/** What each runner calls retrying a failing test, as the summary names it. */
export const RETRY_API = { jest: 'jest.retryTimes', vitest: "Vitest's retry option" } as const;
export type RunnerName = keyof typeof RETRY_API;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The summary as the reporter prints it (no trailing newline); '' when there is nothing to say. */
export function formatSummary(
  s: SuiteSummary,
  options: {
    color?: boolean;
    listTraces?: number;
    cwd?: string;
    history?: HistoryReport[];
    /** The runner whose words the summary uses (default Jest). */
    runner?: RunnerName;
  } = {},
): string {
  const history = options.history ?? [];
  const historySays = history.some((h) => h.flaky.length > 0 || h.ready.length > 0 || h.problem);
  if (isEmpty(s) && !historySays) return '';
  const color = options.color ?? false;
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[39m` : text);
  const bold = (text: string) => (color ? `\u001b[1m${text}\u001b[22m` : text);
  const dim = (text: string) => (color ? `\u001b[2m${text}\u001b[22m` : text);
  const perProvider = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([p, n]) => `${p} ${n}`)
      .join(', ');
  const providers = perProvider(s.replayed);
  const recording = s.recordedTotal > 0 || s.cassettes.length > 0;
  const cwd = options.cwd ?? process.cwd();
  const show = (path: string) => {
    const rel = relative(cwd, path);
    return rel.startsWith('..') ? path : rel;
  };
  const states = (['new', 'updated', 'unchanged'] as const)
    .map((state) => [state, s.cassettes.filter((c) => c.state === state).length] as const)
    .filter(([, n]) => n > 0);
  const lines = [
    bold('jest-understudy'),
    `  ${plural(s.agentRuns, 'agent run')}`,
    // In record mode nothing is replayed: say what was recorded and written instead.
    ...(recording
      ? [
          `  ${plural(s.recordedTotal, 'model call')} recorded${s.recordedTotal > 0 ? dim(` (${perProvider(s.recorded)})`) : ''}`,
          ...(s.replayedTotal > 0
            ? [`  ${plural(s.replayedTotal, 'model call')} replayed${dim(` (${providers})`)}`]
            : []),
          `  ${
            states.length === 0
              ? plural(0, 'cassette') + ' written'
              : states
                  .map(([state, n]) => `${plural(n, 'cassette')} ${state === 'new' ? 'written' : state}`)
                  .join(', ')
          }`,
          ...s.cassettes.map((c) =>
            dim(
              `    ${show(c.path)}: ${c.added} added, ${c.removed} removed, ${c.unchanged} unchanged${c.kept > 0 ? `, ${c.kept} kept` : ''}`,
            ),
          ),
        ]
      : [`  ${plural(s.replayedTotal, 'model call')} replayed${providers ? dim(` (${providers})`) : ''}`]),
    `  ${plural(s.operations, 'tool operation')}`,
    `  ${s.unmatched > 0 ? paint(31, plural(s.unmatched, 'unmatched request')) : plural(0, 'unmatched request')}`,
    `  ${s.staleCassettes.length > 0 ? paint(33, plural(s.staleCassettes.length, 'stale cassette')) : plural(0, 'stale cassette')}`,
    `  ${plural(s.traces.length, 'trace')} written`,
  ];
  lines.push(...testLines(s, history, { paint, dim, retryApi: RETRY_API[options.runner ?? 'jest'] }));
  const limit = options.listTraces ?? 5;
  for (const file of s.staleCassettes.slice(0, limit)) lines.push(dim(`    stale: ${show(file)}`));
  if (limit > 0 && s.traces.length > 0) {
    for (const trace of s.traces.slice(0, limit)) lines.push(dim(`    ${show(trace)}`));
    if (s.traces.length > limit) lines.push(dim(`    … and ${s.traces.length - limit} more`));
  }
  return lines.join('\n');
}

const percent = (failed: number, runs: number) => `${Math.round((failed / runs) * 100)}%`;

/** Tags, skips, the quarantine, flaky tests and retries, as the summary prints them. */
function testLines(
  s: SuiteSummary,
  history: readonly HistoryReport[],
  {
    paint,
    dim,
    retryApi,
  }: { paint: (code: number, text: string) => string; dim: (text: string) => string; retryApi: string },
): string[] {
  const lines: string[] = [];
  const tags = Object.entries(s.byTag);
  if (tags.length > 0) {
    lines.push('  by tag');
    const width = Math.max(...tags.map(([tag]) => tag.length)) + 1;
    for (const [tag, c] of tags) {
      const parts = [`${c.passed} passed`];
      if (c.failed > 0) parts.push(paint(31, `${c.failed} failed`));
      if (c.skipped > 0) parts.push(`${c.skipped} skipped`);
      lines.push(`    ${`@${tag}`.padEnd(width)}  ${parts.join(', ')}`);
    }
  }
  if (s.skipped.length > 0) {
    lines.push(`  ${plural(s.skipped.length, 'test')} skipped`);
    for (const t of s.skipped) lines.push(dim(`    ${t.name} (${t.file}): ${t.reason}`));
  }
  const ready = new Set(history.flatMap((h) => h.ready.map((r) => `${r.file}\u0000${r.name}`)));
  if (s.quarantined.length > 0) {
    const failed = s.quarantined.filter((t) => t.status === 'failed').length;
    lines.push(
      `  ${plural(s.quarantined.length, 'quarantined test')}: ${failed > 0 ? paint(33, `${failed} failed`) : '0 failed'} (not failing the run)`,
    );
    for (const t of s.quarantined) {
      const mark = t.status === 'failed' ? paint(31, '✕') : t.status === 'skipped' ? '○' : '✓';
      const streak = history.flatMap((h) => h.ready).find((r) => r.file === t.file && r.name === t.name);
      lines.push(
        `    ${mark} ${t.name} (${t.file}) ${t.status}${ready.has(`${t.file}\u0000${t.name}`) && streak ? `: passed ${streak.streak} runs in a row, ready to leave the quarantine` : ''}`,
      );
    }
  }
  for (const h of history) {
    if (h.flaky.length > 0) {
      lines.push(`  ${plural(h.flaky.length, 'flaky test')} in recent runs`);
      for (const f of h.flaky.slice(0, 10))
        lines.push(
          `    ${f.name} (${f.file}): failed ${f.failed} of ${f.runs} runs (${percent(f.failed, f.runs)})`,
        );
      if (h.flaky.length > 10) lines.push(dim(`    … and ${h.flaky.length - 10} more`));
    }
    if (h.problem) lines.push(paint(33, `  history not updated: ${h.problem}`));
  }
  if (s.retryFiles.length > 0 || s.passedOnRetry.length > 0) {
    lines.push(
      paint(
        33,
        `  retries mask the flake rate: ${retryApi} in ${plural(s.retryFiles.length, 'file')}, ${plural(s.passedOnRetry.length, 'test')} passed only on a retry`,
      ),
    );
    for (const t of s.passedOnRetry) lines.push(dim(`    ${t.name} (${t.file})`));
  }
  return lines;
}

/** Adds up the file reports, records the history and prints the summary (both runners' reporters). */
export function printSummary(
  testResults: readonly ResultLike[],
  options: ReporterOptions,
  runner: RunnerName = 'jest',
): SuiteSummary {
  const color = options.color ?? (Boolean(process.stderr.isTTY) && !process.env.NO_COLOR);
  const summary = summarize(testResults);
  let history: HistoryReport[] = [];
  try {
    history = recordHistory(summary);
  } catch (error) {
    process.stderr.write(
      `\njest-understudy: the test history was not updated: ${(error as Error)?.message}\n`,
    );
  }
  const text = formatSummary(summary, {
    color,
    history,
    runner,
    ...(options.listTraces !== undefined && { listTraces: options.listTraces }),
  });
  if (text) process.stderr.write(`\n${text}\n`);
  return summary;
}

/** What the CI surfaces take of the summary. */
export const factsOf = (s: SuiteSummary): RunFacts => ({
  counts: {
    agentRuns: s.agentRuns,
    replayed: s.replayedTotal,
    unmatched: s.unmatched,
    staleCassettes: s.staleCassettes.length,
  },
  ...(s.traceDir !== undefined && { traceDir: s.traceDir }),
});

/** The reporter's options, checked: a bad one stops the run before any test, naming it. */
export function checkedOptions(options: unknown, reporter: string): ReporterOptions {
  const given = (options ?? {}) as Record<string, unknown>;
  const problem = ciOptionsProblem(given, reporter);
  if (problem) throw new Error(problem);
  return given as ReporterOptions;
}

/** The Jest reporter: `reporters: ['default', 'jest-understudy/reporter']` (the preset adds it). */
export default class UnderstudyReporter {
  private readonly options: ReporterOptions;
  private readonly startedAt = new Date();
  /** Jest's `--json` without `--outputFile` prints its results on standard output: annotations go beside, on stderr. */
  private readonly stdoutTaken: boolean;
  private problem: Error | undefined;

  constructor(globalConfig?: unknown, options?: ReporterOptions) {
    this.options = checkedOptions(options, 'jest-understudy/reporter');
    const config = (globalConfig ?? {}) as { json?: boolean; outputFile?: string };
    this.stdoutTaken = config.json === true && !config.outputFile;
  }

  onRunComplete(
    _contexts: unknown,
    results: { testResults: ReadonlyArray<ResultLike & JestFileLike> },
  ): void {
    const files = results.testResults ?? [];
    const summary = printSummary(files, this.options);
    const problems = reportToCi(jestCases(files), factsOf(summary), this.options, {
      runner: 'Jest',
      startedAt: this.startedAt,
      ...(this.stdoutTaken && { write: (text: string) => process.stderr.write(text) }),
    });
    if (problems.length > 0) {
      process.stderr.write(`\njest-understudy: ${problems.join('\njest-understudy: ')}\n`);
      this.problem = new Error(`jest-understudy: ${problems.join('; ')}`);
    }
  }

  getLastError(): Error | undefined {
    return this.problem;
  }
}

export { UnderstudyReporter };
