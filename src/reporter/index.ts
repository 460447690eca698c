/**
 * `jest-understudy/reporter`: after the run, a short summary of what the suite asked of
 * jest-understudy — agent runs, model calls replayed (per provider), tool operations,
 * unmatched requests, stale cassettes, traces written; in record modes, the calls recorded
 * (per provider) and the cassettes written, with the fixtures added, removed and unchanged. Prints nothing when the suite
 * used none of it. The counts come from each test file's result (`testResult.understudy`,
 * attached by the preset's test runner), so they add up across workers; with `--shard`
 * each shard reports its own files.
 */
import { relative } from 'node:path';

/** A cassette a test file wrote, and what changed in it. */
export interface CassetteReport {
  path: string;
  state: 'new' | 'updated' | 'unchanged';
  added: number;
  removed: number;
  unchanged: number;
  kept: number;
}

/** What the environment reports per test file (see environment/index.ts). */
export interface FileReport {
  agentRuns: number;
  replayed: Record<string, number>;
  operations: number;
  unmatched: number;
  staleCassettes: string[];
  traces: string[];
  recorded?: Record<string, number>;
  cassettes?: CassetteReport[];
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
}

export interface ReporterOptions {
  /** Trace paths listed under the summary (default 5; 0 lists none). */
  listTraces?: number;
  /** Force colors on or off (default: when stderr is a terminal and NO_COLOR is unset). */
  color?: boolean;
}

interface ResultLike {
  testFilePath?: string;
  understudy?: Partial<FileReport>;
}

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
  };
  const stale = new Set<string>();
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
  }
  sum.staleCassettes = [...stale].sort();
  return sum;
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
    s.traces.length === 0
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The summary as the reporter prints it (no trailing newline); '' when there is nothing to say. */
export function formatSummary(
  s: SuiteSummary,
  options: { color?: boolean; listTraces?: number; cwd?: string } = {},
): string {
  if (isEmpty(s)) return '';
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
  const limit = options.listTraces ?? 5;
  for (const file of s.staleCassettes.slice(0, limit)) lines.push(dim(`    stale: ${show(file)}`));
  if (limit > 0 && s.traces.length > 0) {
    for (const trace of s.traces.slice(0, limit)) lines.push(dim(`    ${show(trace)}`));
    if (s.traces.length > limit) lines.push(dim(`    … and ${s.traces.length - limit} more`));
  }
  return lines.join('\n');
}

/** The Jest reporter: `reporters: ['default', 'jest-understudy/reporter']` (the preset adds it). */
export default class UnderstudyReporter {
  private readonly options: ReporterOptions;

  constructor(_globalConfig?: unknown, options?: ReporterOptions) {
    this.options = options ?? {};
  }

  onRunComplete(_contexts: unknown, results: { testResults: readonly ResultLike[] }): void {
    const color = this.options.color ?? (Boolean(process.stderr.isTTY) && !process.env.NO_COLOR);
    const text = formatSummary(summarize(results.testResults ?? []), {
      color,
      ...(this.options.listTraces !== undefined && { listTraces: this.options.listTraces }),
    });
    if (text) process.stderr.write(`\n${text}\n`);
  }

  getLastError(): Error | undefined {
    return undefined;
  }
}

export { UnderstudyReporter };
