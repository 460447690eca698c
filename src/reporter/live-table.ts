/**
 * The live pass-rate table of the job summary. `understudy live --repeat` writes its JSON report
 * into the trace folder; when that file is there as the reporter finishes, the summary ends with
 * a table of it. Only the fields read here are relied on, each checked as it is read: a report of
 * another shape renders as much as it says, and one with no tests renders nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { escapeMarkdown } from './github';

/** The live report's file name, in the trace folder. */
export const LIVE_REPORT = 'live-report.json';

/** Where the reporter looks for the live report, in the trace folder. */
export const liveReportPath = (traceDir: string) => join(traceDir, LIVE_REPORT);

/** The trace folder when no test file said where its own is. */
export const defaultTraceDir = (rootDir: string) => join(rootDir, '.understudy', 'traces');

/** The fields of a live report's test the table reads. */
export interface LiveTestLike {
  file?: string;
  name: string;
  runs: number;
  passed: number;
  /** The gate this test had to meet (the run's `--min-pass-rate` or the test's own). */
  minPassRate?: number;
  /** As `understudy live` writes them: `terminal` is how the model ended (`stop`, `tool_calls`, `cut`…). */
  trajectories?: Array<{ tools: string[]; terminal?: string; count: number }>;
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

function testsOf(report: unknown): LiveTestLike[] {
  const tests = (report as { tests?: unknown } | null)?.tests;
  if (!Array.isArray(tests)) return [];
  return tests.filter(
    (t): t is LiveTestLike =>
      typeof t === 'object' &&
      t !== null &&
      typeof t.name === 'string' &&
      isCount(t.runs) &&
      isCount(t.passed),
  );
}

/** The report as a Markdown table, or undefined when it names no test. */
export function liveTable(report: unknown, written?: Date): string | undefined {
  const tests = testsOf(report);
  if (tests.length === 0) return undefined;
  const rows = tests.map((t) => {
    const rate = t.runs === 0 ? 0 : t.passed / t.runs;
    const gate = typeof t.minPassRate === 'number' ? t.minPassRate : undefined;
    const mark = gate === undefined ? '' : rate >= gate ? '✅ ' : '❌ ';
    const top = (Array.isArray(t.trajectories) ? t.trajectories : [])
      .filter((j) => Array.isArray(j?.tools) && isCount(j.count))
      .sort((a, b) => b.count - a.count)
      .slice(0, 3)
      .map((j) =>
        escapeMarkdown(
          `${j.count}× ${j.tools.join(' → ') || '(no tools)'}${typeof j.terminal === 'string' ? ` (${j.terminal})` : ''}`,
        ),
      )
      .join('<br>');
    const name = t.file ? `${t.file} › ${t.name}` : t.name;
    return `| ${escapeMarkdown(name)} | ${mark}${Math.round(rate * 100)}% | ${t.passed}/${t.runs} | ${gate === undefined ? '' : `${Math.round(gate * 100)}%`} | ${top} |`;
  });
  return [
    `### Live pass rates${written ? ` (report written ${written.toISOString()})` : ''}`,
    '| Test | Pass rate | Passed | Gate | Trajectories |',
    '|---|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}

/** The table of the live report at `path`, if one is there and names tests. */
export function liveTableAt(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return liveTable(JSON.parse(readFileSync(path, 'utf8')), statSync(path).mtime);
  } catch {
    return `### Live pass rates\n\nThe live report at \`${path}\` could not be read as JSON.`;
  }
}
