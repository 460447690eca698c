/**
 * `jest-understudy/vitest/reporter`: the summary of ./index.ts under Vitest (the plugin adds it).
 * Each test file's session puts its report on the file's task (`meta.understudy`), which Vitest
 * carries from its workers to the reporters, as Jest carries the test result's `understudy`; the
 * tests' statuses come from Vitest's own results. Duck-typed: it loads nothing of Vitest.
 *
 * Under `--merge-reports` the modules are the shards' (from their blob files, `meta` included), so
 * the summary is the whole run's; a shard's history record is reported again as the one it wrote
 * (./index.ts's `run`), into the merging checkout's history file.
 */
import { isAbsolute, join, relative } from 'node:path';
import { type FileReport, printSummary, type ReporterOptions } from './index';
import { type AssertionLike, reportTests, type TestNotes, testNameOf } from './results';

/** The parts of Vitest's reported tasks (`TestModule`, `TestCase`, `TestSuite`) read here. */
interface ParentLike {
  type: string;
  name?: string;
  parent?: ParentLike;
}

interface TestCaseLike extends ParentLike {
  name: string;
  fullName?: string;
  result(): { state: string; note?: string };
  diagnostic?(): { retryCount?: number } | undefined;
}

export interface TestModuleLike {
  moduleId: string;
  /** The project here, in this checkout (under --merge-reports, the one the shard's project is named as). */
  project?: { config?: { root?: string } };
  meta(): Record<string, unknown>;
  /** Errors of the module outside its tests (a failed import, an afterAll hook). */
  errors?(): readonly unknown[];
  children: { allTests(): Iterable<TestCaseLike>; allSuites?(): Iterable<{ errors?(): readonly unknown[] }> };
}

/**
 * The report with its history file moved from the checkout that ran the file (a shard's, under
 * --merge-reports) to the same place in this one.
 */
export function inThisCheckout(report: Partial<FileReport>, root: string | undefined): Partial<FileReport> {
  const { history, rootDir } = report;
  if (!root || !rootDir || rootDir === root || !history || typeof history.path !== 'string') return report;
  const inside = relative(rootDir, history.path);
  if (inside.startsWith('..') || isAbsolute(inside)) return report;
  return { ...report, history: { ...history, path: join(root, inside) } };
}

/** One test as Jest's assertion result reads: the summary's core speaks that shape. */
function assertionOf(test: TestCaseLike): AssertionLike {
  const ancestors: string[] = [];
  for (let parent = test.parent; parent && parent.type === 'suite'; parent = parent.parent)
    ancestors.unshift(parent.name ?? '');
  const state = test.result().state;
  return {
    ancestorTitles: ancestors,
    title: test.name,
    fullName: [...ancestors, test.name].join(' '),
    status: state === 'passed' ? 'passed' : state === 'failed' ? 'failed' : 'skipped',
    invocations: (test.diagnostic?.()?.retryCount ?? 0) + 1,
  };
}

export default class UnderstudyVitestReporter {
  constructor(private readonly options: ReporterOptions = {}) {}

  onTestRunEnd(
    testModules: readonly TestModuleLike[],
    unhandledErrors: readonly unknown[] = [],
    reason = '',
  ): void {
    /** Failures the quarantine does not excuse: a test's, or a file's or a suite's outside its tests. */
    let unexcused = unhandledErrors.length;
    let excused = 0;
    const results = testModules.map((module) => {
      unexcused += module.errors?.().length ?? 0;
      for (const suite of module.children.allSuites?.() ?? []) unexcused += suite.errors?.().length ?? 0;
      const tests = [...module.children.allTests()].map(assertionOf);
      const failing = tests.filter((t) => t.status === 'failed').length;
      const given = module.meta().understudy as (Partial<FileReport> & TestNotes) | undefined;
      if (!given || typeof given !== 'object') {
        unexcused += failing;
        return { testFilePath: module.moduleId };
      }
      const report = { ...given, ...inThisCheckout(given, module.project?.config?.root) };
      // A test that skipped itself with a note (`live()` outside live mode) says why, as the note.
      const skipped = { ...report.skipped };
      for (const test of module.children.allTests()) {
        const { state, note } = test.result();
        const name = testNameOf(assertionOf(test));
        if (note && state === 'skipped' && skipped[name] === undefined) skipped[name] = note;
      }
      const { tests: reported, excused: here } = reportTests(
        { numFailingTests: failing, testResults: tests },
        { ...report, skipped },
      );
      excused += here;
      unexcused += failing - here;
      return { testFilePath: module.moduleId, understudy: { ...report, tests: reported } };
    });
    printSummary(results, this.options, 'vitest');
    // As under Jest, a quarantined failure stays a failed test for every reporter; only the exit
    // code leaves it out (Vitest set it before calling its reporters).
    if (reason === 'failed' && excused > 0 && unexcused === 0 && process.exitCode === 1) process.exitCode = 0;
  }
}

export { UnderstudyVitestReporter };
