/**
 * Each test of the run as the CI surfaces (the GitHub job summary and annotations, JUnit XML)
 * report it: its file, name, status and time from the runner; for a failure, the message, the
 * line of the failing assertion (from the error's stack), and what the environment noted about
 * it (the trace and timeline it wrote, the trajectory expectation that broke). Both reporters
 * build these from their runner's results; the renderers know no runner.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

/** A failed trajectory expectation, by tool name (arguments stay in the trace). */
export interface ExpectationNote {
  matcher: string;
  negated: boolean;
  expected: string[];
  received: string[];
  /** Expected and received side by side (indexes into the lists); `ok: false` rows break the expectation. */
  rows: Array<{ expected?: number; received?: number; ok: boolean }>;
  /** What the expectation stands for, when the code that made it named it (a golden task's entry). */
  source?: string;
}

/** What the environment notes about a failed test, for the reporter (`FileReport.failures`, by test name). */
export interface FailureNote {
  trace?: string;
  timeline?: string;
  expectation?: ExpectationNote;
  /** The failure's message, scrubbed with the credentials the test file knew of. */
  message?: string;
  /** The line of the test file where the test is defined: where a failure with no frame there (an unmatched request failing the test at its end) is shown. */
  testLine?: number;
}

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseFailure {
  /** The message without its stack (and without the trace note the environment appends). */
  message: string;
  /** The error's name (`Error`, `JestAssertionError`, `AssertionError`, `UnderstudyError`…). */
  type: string;
  /** Where the test file's code failed: the first frame of the stack in the test file, else the test's own line. */
  line?: number;
  column?: number;
}

/** One test (or a file's failure outside its tests: `name` is then empty). */
export interface CaseResult {
  /** Absolute path of the test file. */
  file: string;
  /** `describe › … › test` */
  name: string;
  status: CaseStatus;
  durationMs?: number;
  failure?: CaseFailure;
  note?: FailureNote;
}

const TRACE_NOTE = /\n*Understudy trace: {4}.*\nUnderstudy timeline: .*$/m;

/** A failure message as the CI surfaces show it: no colours, no trace note (the paths are shown apart). */
export function cleanMessage(message: string): string {
  return stripVTControlCharacters(message).replace(TRACE_NOTE, '').trimEnd();
}

const FRAME = /^\s*at (?:async )?(?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

function framePath(path: string): string {
  if (path.startsWith('file://'))
    try {
      return fileURLToPath(path);
    } catch {
      return path;
    }
  return path;
}

/** Line and column of the first frame of `stack` in `testFile`. */
export function locate(
  stack: string | undefined,
  testFile: string,
): { line: number; column: number } | undefined {
  if (!stack) return undefined;
  for (const text of stripVTControlCharacters(stack).split('\n')) {
    const frame = FRAME.exec(text);
    if (frame && framePath(frame[1]) === testFile)
      return { line: Number(frame[2]), column: Number(frame[3]) };
  }
  return undefined;
}

/** The message part of a formatted error (`Name: message\n    at …`): what comes before the first frame. */
export function messageOfStack(stack: string): string {
  const lines = stripVTControlCharacters(stack).split('\n');
  const first = lines.findIndex((line) => FRAME.test(line));
  return (first === -1 ? lines : lines.slice(0, first)).join('\n').trimEnd();
}

/** `path` relative to `root` with forward slashes, or undefined when it is not inside `root`. */
export function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/** `path` relative to `root` when inside it, else as it is (forward slashes either way). */
export function shownPath(root: string, path: string): string {
  return inside(root, path) ?? path.split(sep).join('/');
}

export interface CaseCounts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The tests by status (a file's failure outside its tests is not a test: see `fileErrors`). */
export function countCases(cases: readonly CaseResult[]): CaseCounts {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const c of cases) if (c.name !== '') counts[c.status]++;
  return counts;
}

export const fileErrors = (cases: readonly CaseResult[]) => cases.filter((c) => c.name === '').length;

/** The expected and received tools as diff lines: `  ` both, `- ` expected only, `+ ` received only. */
export function trajectoryLines(e: ExpectationNote): string[] {
  if (e.negated)
    return [
      `forbidden: ${e.expected.join(' → ') || '(none)'}`,
      `received:  ${e.received.join(' → ') || '(none)'}`,
    ];
  const lines: string[] = [];
  for (const row of e.rows) {
    const expected = row.expected === undefined ? undefined : e.expected[row.expected];
    const received = row.received === undefined ? undefined : e.received[row.received];
    if (row.ok && received !== undefined) lines.push(`  ${received}`);
    else {
      if (expected !== undefined) lines.push(`- ${expected}`);
      if (received !== undefined) lines.push(`+ ${received}`);
    }
  }
  return lines;
}
