/**
 * What both runner adapters tell the reporter about a failed test (the file report's `failures`):
 * the trace and timeline written for it, the trajectory expectation that broke, by tool name, and
 * its messages scrubbed with the credentials the test file knew of, which the reporter, in another
 * process, cannot know.
 */
import { stripVTControlCharacters } from 'node:util';
import { scrubForWriting } from '../src/files/write';
import type { FailureNote } from '../src/reporter/cases';
import type { ExpectationEvidence } from '../src/trace/evidence';

/** Past this, the messages are cut: the reporter shows a few thousand characters of them. */
const MAX_MESSAGE = 16 * 1024;

/** The name a report gives a test: `describe › … › test`, as Jest's and Vitest's results name it in the reporter. */
export const reportName = (name: string) => name.split(' > ').join(' › ');

export function failureNote(
  written: { trace: string; html: string } | undefined,
  expectation: ExpectationEvidence | undefined,
  messages: readonly string[],
  secrets: Iterable<string>,
  testLine?: number,
): FailureNote {
  // Scrubbed before it is cut, so no cut leaves part of a key behind.
  const text = scrubForWriting(messages.map((m) => stripVTControlCharacters(m)).join('\n\n'), secrets);
  const message = text.length > MAX_MESSAGE ? text.slice(0, MAX_MESSAGE) : text;
  return {
    ...(written && { trace: written.trace, timeline: written.html }),
    ...(expectation && {
      expectation: {
        matcher: expectation.matcher,
        negated: expectation.negated,
        expected: expectation.expected.map((s) => scrubForWriting(s.name, secrets)),
        received: expectation.actual.map((s) => scrubForWriting(s.name, secrets)),
        rows: expectation.rows.map((r) => ({ ...r })),
        ...(expectation.source !== undefined && { source: scrubForWriting(expectation.source, secrets) }),
      },
    }),
    ...(message !== '' && { message }),
    ...(testLine !== undefined && { testLine }),
  };
}
