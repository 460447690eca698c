/**
 * GitHub Actions' surfaces: `::error` workflow commands that annotate the failing assertion in the
 * pull request's diff, and the Markdown the job summary (`GITHUB_STEP_SUMMARY`) shows: each failing
 * test with its trajectory diff, where it failed, and its trace and timeline. Every piece of text
 * is scrubbed of secrets before it is rendered, as a trace is.
 */
import { scrubForWriting } from '../files/write';
import {
  type CaseResult,
  cleanMessage,
  countCases,
  fileErrors,
  inside,
  shownPath,
  trajectoryLines,
} from './cases';

/** A workflow command's message: `%`, CR and LF escaped (as actions/toolkit's `escapeData`). */
export const escapeData = (text: string) =>
  text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** A workflow command's property: also `:` and `,`, which end a property (actions/toolkit's `escapeProperty`). */
export const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** Past this, a message is cut: GitHub shows an annotation's first lines, a summary step holds 1 MiB. */
const MAX_MESSAGE = 4000;
/** GitHub refuses a step summary over 1 MiB; the summary stays well below, whatever else the step appends. */
const MAX_SUMMARY_BYTES = 512 * 1024;

function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… [${text.length - max} more characters left out]`;
}

const testTitle = (c: CaseResult, root: string) =>
  c.name === '' ? `${shownPath(root, c.file)} (outside its tests)` : `${shownPath(root, c.file)} › ${c.name}`;

/**
 * One `::error` command per failing test, at the test file's line where it failed (file relative to
 * the workspace, as GitHub places annotations); a test file outside the workspace is named in the
 * title instead.
 */
export function annotations(cases: readonly CaseResult[], workspace: string): string[] {
  const lines: string[] = [];
  for (const c of cases) {
    if (c.status !== 'failed') continue;
    const file = inside(workspace, c.file);
    const properties = [
      ...(file ? [`file=${escapeProperty(scrubForWriting(file))}`] : []),
      ...(file && c.failure?.line ? [`line=${c.failure.line}`] : []),
      ...(file && c.failure?.column ? [`col=${c.failure.column}`] : []),
      `title=${escapeProperty(scrubForWriting(testTitle(c, workspace)))}`,
    ];
    const message = scrubForWriting(cut(cleanMessage(c.failure?.message ?? 'failed'), MAX_MESSAGE));
    lines.push(`::error ${properties.join(',')}::${escapeData(message)}`);
  }
  return lines;
}

/** Text safe in running Markdown and table cells (never at a line's start): what means something there, escaped. */
export const escapeMarkdown = (text: string) => text.replace(/[\\`*_[\]<>|~&]/g, '\\$&').replace(/\n/g, ' ');

const longestBackticks = (text: string) => Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));

/** A fenced block whose fence no run of backticks in `text` can close. */
export function fenced(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBackticks(text) + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** A code span that holds `text` whole, backticks included. */
function code(text: string): string {
  const longest = longestBackticks(text);
  const ticks = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

export interface SummaryCounts {
  agentRuns: number;
  replayed: number;
  unmatched: number;
  staleCassettes: number;
}

export interface JobSummaryOptions {
  /** Paths are shown relative to it (the workspace). */
  workspace: string;
  runner: 'Jest' | 'Vitest';
  counts: SummaryCounts;
  /** The live pass-rate table (./live-table.ts), when a live report exists. */
  live?: string;
  /** Failing tests shown in full; the rest are listed by name. */
  maxFailures?: number;
}

function failureSection(c: CaseResult, workspace: string): string {
  const parts = [`#### ❌ ${escapeMarkdown(testTitle(c, workspace))}`];
  const file = shownPath(workspace, c.file);
  if (c.failure?.line) parts.push(`At ${code(`${file}:${c.failure.line}`)}`);
  const e = c.note?.expectation;
  if (e)
    parts.push(
      `Trajectory (${code(`${e.negated ? '.not.' : ''}${e.matcher}`)}${e.source ? `, ${escapeMarkdown(e.source)}` : ''}, ${e.negated ? 'forbidden' : '`-` expected, `+` received'}):`,
      fenced(trajectoryLines(e).join('\n'), 'diff'),
    );
  parts.push(fenced(cut(cleanMessage(c.failure?.message ?? 'failed'), MAX_MESSAGE), 'text'));
  const paths = [
    ...(c.note?.trace ? [`Trace: ${code(shownPath(workspace, c.note.trace))}`] : []),
    ...(c.note?.timeline ? [`Timeline: ${code(shownPath(workspace, c.note.timeline))}`] : []),
  ];
  if (paths.length > 0) parts.push(paths.join(' · '));
  return parts.join('\n\n');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The job summary's Markdown for this run (starts with a blank line, ends with a newline). */
export function jobSummary(cases: readonly CaseResult[], options: JobSummaryOptions): string {
  const { workspace, counts } = options;
  const tests = countCases(cases);
  const errors = fileErrors(cases);
  const failing = cases.filter((c) => c.status === 'failed');
  const verdict = failing.length > 0 ? '❌' : '✅';
  const headline = [
    `${tests.failed} failed`,
    `${tests.passed} passed`,
    ...(tests.skipped > 0 ? [`${tests.skipped} skipped`] : []),
    ...(errors > 0 ? [`${plural(errors, 'file')} failed outside its tests`] : []),
  ].join(', ');
  const sections = [
    `## ${verdict} jest-understudy (${options.runner}): ${headline}`,
    [
      '| Tests | Passed | Failed | Skipped | Agent runs | Model calls replayed | Unmatched requests | Stale cassettes |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${tests.passed + tests.failed + tests.skipped} | ${tests.passed} | ${tests.failed} | ${tests.skipped} | ${counts.agentRuns} | ${counts.replayed} | ${counts.unmatched} | ${counts.staleCassettes} |`,
    ].join('\n'),
  ];
  if (failing.length > 0) {
    sections.push('### Failing tests');
    const max = options.maxFailures ?? 30;
    let bytes = sections.join('\n\n').length;
    const rest: CaseResult[] = [];
    for (const c of failing) {
      const section = failureSection(c, workspace);
      if (rest.length > 0 || sections.length - 3 >= max || bytes + section.length > MAX_SUMMARY_BYTES) {
        rest.push(c);
        continue;
      }
      sections.push(section);
      bytes += section.length + 2;
    }
    if (rest.length > 0)
      sections.push(
        `And ${plural(rest.length, 'more failing test')} (see the job's log):\n\n${rest.map((c) => `- ${escapeMarkdown(testTitle(c, workspace))}`).join('\n')}`,
      );
  }
  if (options.live) sections.push(options.live);
  // A blank line first: what an earlier step appended may not end its last line.
  return `\n${scrubForWriting(sections.join('\n\n'))}\n`;
}
