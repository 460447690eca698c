/**
 * What each test of a file did, read from Jest's test result by the preset's test runner: the
 * status the history keeps (a pass on a retry is `flaky`), its tags, why it was skipped, and
 * whether it is quarantined. A quarantined test that fails stays `failed` in every reporter's
 * eyes; only the file's failure count leaves it out, which is what Jest's exit code reads.
 */

/** The parts of Jest's per-test assertion result read here. */
export interface AssertionLike {
  ancestorTitles: readonly string[];
  title: string;
  fullName?: string;
  status: string;
  invocations?: number;
}

export interface FileResultLike {
  numFailingTests: number;
  testResults: readonly AssertionLike[];
}

export type ReportedStatus = 'passed' | 'failed' | 'flaky' | 'skipped';

export interface ReportedTest {
  /** `describe › … › test` */
  name: string;
  status: ReportedStatus;
  quarantined?: boolean;
  tags?: string[];
  /** Why it did not run (a `live()` test outside live mode, a test without the tag asked for). */
  reason?: string;
}

/** What the environment knows about the file's tests beyond Jest's result. */
export interface TestNotes {
  quarantine: readonly string[];
  /** Tags per test name (the file's docblock tags, and the `@tag`s in its titles). */
  tags: Readonly<Record<string, readonly string[]>>;
  skipped: Readonly<Record<string, string>>;
}

export const testNameOf = (a: AssertionLike) => [...a.ancestorTitles, a.title].join(' › ');

/** A quarantine entry names a test as the timeline does (`describe › test`) or as Jest does (`describe test`). */
export function inQuarantine(entries: readonly string[], a: AssertionLike): boolean {
  const name = testNameOf(a);
  const full = a.fullName ?? [...a.ancestorTitles, a.title].join(' ');
  return entries.some((entry) => entry === name || entry === full);
}

function statusOf(a: AssertionLike): ReportedStatus {
  if (a.status === 'passed') return (a.invocations ?? 1) > 1 ? 'flaky' : 'passed';
  if (a.status === 'failed') return 'failed';
  return 'skipped';
}

/**
 * The file's tests as reported, and the result with quarantined failures taken out of its
 * failure count (so they do not fail the run). Returns how many were taken out.
 */
export function reportTests(
  result: FileResultLike,
  notes: TestNotes,
): { tests: ReportedTest[]; excused: number } {
  let excused = 0;
  const tests = result.testResults.map((a) => {
    const name = testNameOf(a);
    const status = statusOf(a);
    const quarantined = inQuarantine(notes.quarantine, a);
    if (quarantined && status === 'failed') excused++;
    const tags = notes.tags[name];
    const reason = status === 'skipped' ? notes.skipped[name] : undefined;
    return {
      name,
      status,
      ...(quarantined && { quarantined }),
      ...(tags && tags.length > 0 && { tags: [...tags] }),
      ...(reason !== undefined && { reason }),
    };
  });
  return { tests, excused };
}
