/**
 * Jest's aggregated results as the CI surfaces' cases (./cases.ts). Duck-typed: it loads nothing
 * of Jest. A test's failure messages are its errors' stacks as Jest formats them; the first frame
 * in the test file is the failing assertion.
 */
import {
  type CaseResult,
  type CaseStatus,
  cleanMessage,
  type FailureNote,
  locate,
  messageOfStack,
} from './cases';
import { testNameOf } from './results';

/** The parts of Jest's per-test result read here. */
interface JestAssertionLike {
  ancestorTitles: readonly string[];
  title: string;
  status: string;
  duration?: number | null;
  failureMessages?: readonly string[];
  failureDetails?: readonly unknown[];
}

export interface JestFileLike {
  testFilePath?: string;
  testResults?: readonly JestAssertionLike[];
  testExecError?: { message?: string; stack?: string } | null;
  understudy?: { failures?: Record<string, FailureNote> };
}

const statusOf = (status: string): CaseStatus =>
  status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'skipped';

function typeOf(detail: unknown, stack: string | undefined): string {
  const name = (detail as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && name !== '') return name;
  const first = /^(\w*(?:Error|Exception))\b/.exec(cleanMessage(stack ?? ''));
  return first ? first[1] : 'Error';
}

function messageOf(detail: unknown, stack: string): string {
  const message = (detail as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : messageOfStack(stack);
}

export function jestCases(files: readonly JestFileLike[]): CaseResult[] {
  const cases: CaseResult[] = [];
  for (const result of files) {
    const file = result.testFilePath ?? '';
    const notes = result.understudy?.failures ?? {};
    for (const a of result.testResults ?? []) {
      const name = testNameOf(a);
      const status = statusOf(a.status);
      const base = { file, name, status, ...(typeof a.duration === 'number' && { durationMs: a.duration }) };
      if (status !== 'failed') {
        cases.push(base);
        continue;
      }
      const stacks = a.failureMessages ?? [];
      const details = a.failureDetails ?? [];
      const note = notes[name];
      const at =
        stacks.map((s) => locate(s, file)).find((l) => l !== undefined) ??
        (note?.testLine !== undefined ? { line: note.testLine, column: undefined } : undefined);
      cases.push({
        ...base,
        failure: {
          message: note?.message ?? stacks.map((s, i) => messageOf(details[i], s)).join('\n\n'),
          type: typeOf(details[0], stacks[0]),
          ...(at && { line: at.line }),
          ...(at?.column !== undefined && { column: at.column }),
        },
        ...(note && { note }),
      });
    }
    const error = result.testExecError;
    if (error) {
      const at = locate(error.stack, file);
      cases.push({
        file,
        name: '',
        status: 'failed',
        failure: {
          message: error.message ?? messageOfStack(error.stack ?? ''),
          type: typeOf(undefined, error.stack),
          ...(at && { line: at.line, column: at.column }),
        },
      });
    }
  }
  return cases;
}
