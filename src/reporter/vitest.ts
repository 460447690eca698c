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
import { type CaseResult, type FailureNote, locate, messageOfStack } from './cases';
import { reportToCi } from './ci';
import { checkedOptions, type FileReport, factsOf, printSummary, type ReporterOptions } from './index';
import { type AssertionLike, reportTests, type TestNotes, testNameOf } from './results';

/** The parts of Vitest's reported tasks (`TestModule`, `TestCase`, `TestSuite`) read here. */
interface ParentLike {
  type: string;
  name?: string;
  parent?: ParentLike;
}

/** An error as Vitest reports it (serialized from the worker). */
interface ErrorLike {
  name?: string;
  message?: string;
  stack?: string;
  stacks?: ReadonlyArray<{ file?: string; line?: number; column?: number }>;
}

interface TestCaseLike extends ParentLike {
  name: string;
  fullName?: string;
  result(): { state: string; note?: string; errors?: readonly ErrorLike[] };
  /** Where the test is defined (the plugin sets `includeTaskLocation`). */
  location?: { line: number; column: number };
  diagnostic?(): { retryCount?: number; duration?: number } | undefined;
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

/** Where an error points in the test file: Vitest's parsed frames when it gives them, else its stack. */
function where(error: ErrorLike, file: string): { line: number; column: number } | undefined {
  const frame = error.stacks?.find((s) => s.file === file && typeof s.line === 'number');
  if (frame?.line) return { line: frame.line, column: frame.column ?? 0 };
  return locate(error.stack, file);
}

function failureOf(
  errors: readonly ErrorLike[],
  file: string,
  note: FailureNote | undefined,
  testAt?: { line: number; column: number },
): CaseResult['failure'] {
  const at = errors.map((e) => where(e, file)).find((l) => l !== undefined) ?? testAt;
  return {
    message:
      note?.message ??
      errors
        .map((e) => (typeof e.message === 'string' ? e.message : messageOfStack(e.stack ?? '')))
        .join('\n\n'),
    type: typeof errors[0]?.name === 'string' && errors[0].name !== '' ? errors[0].name : 'Error',
    ...(at && { line: at.line, column: at.column }),
  };
}

/** Vitest's modules as the CI surfaces' cases (./cases.ts). */
export function vitestCases(testModules: readonly TestModuleLike[]): CaseResult[] {
  const cases: CaseResult[] = [];
  for (const module of testModules) {
    const file = module.moduleId;
    const notes = ((module.meta().understudy as Partial<FileReport> | undefined)?.failures ?? {}) as Record<
      string,
      FailureNote
    >;
    for (const test of module.children.allTests()) {
      const name = testNameOf(assertionOf(test));
      const result = test.result();
      const status = result.state === 'passed' ? 'passed' : result.state === 'failed' ? 'failed' : 'skipped';
      const duration = test.diagnostic?.()?.duration;
      const note = status === 'failed' ? notes[name] : undefined;
      cases.push({
        file,
        name,
        status,
        ...(typeof duration === 'number' && { durationMs: duration }),
        ...(status === 'failed' && { failure: failureOf(result.errors ?? [], file, note, test.location) }),
        ...(note && { note }),
      });
    }
    const errors = [
      ...((module.errors?.() ?? []) as ErrorLike[]),
      ...[...(module.children.allSuites?.() ?? [])].flatMap((s) => (s.errors?.() ?? []) as ErrorLike[]),
    ];
    if (errors.length > 0)
      cases.push({ file, name: '', status: 'failed', failure: failureOf(errors, file, undefined) });
  }
  return cases;
}

/**
 * The instances of this reporter in the process: the plugin adds one unless the config names it,
 * and a config may load it under another name (a file of its own that passes it options). The
 * plugin's then stands aside, so the summary and the CI surfaces are written once. A global, not a
 * module variable: Vitest may load this module apart from the plugin's copy.
 */
const INSTANCES = Symbol.for('jest-understudy.vitest-reporters');
function instances(): Set<UnderstudyVitestReporter> {
  const global = globalThis as Record<symbol, unknown>;
  global[INSTANCES] ??= new Set();
  return global[INSTANCES] as Set<UnderstudyVitestReporter>;
}

export default class UnderstudyVitestReporter {
  private readonly options: ReporterOptions;
  private readonly startedAt = new Date();
  readonly addedByPlugin: boolean;
  /** The Vitest this instance reports for (several may run in one process). */
  private vitest: unknown;
  /**
   * Vitest's own `github-actions` reporter runs too (Vitest adds it under GitHub Actions when the
   * config names no reporters): it annotates the failures, so this one writes only the job summary.
   */
  private vitestAnnotates = false;

  constructor(options: ReporterOptions & { addedBy?: string } = {}) {
    const { addedBy, ...rest } = options;
    this.addedByPlugin = addedBy === 'jest-understudy/vitest';
    this.options = checkedOptions(rest, 'jest-understudy/vitest/reporter');
    instances().add(this);
  }

  onInit(vitest: unknown): void {
    this.vitest = vitest;
    const reporters = (vitest as { config?: { reporters?: unknown[] } } | undefined)?.config?.reporters ?? [];
    this.vitestAnnotates = reporters.some((r) => (Array.isArray(r) ? r[0] : r) === 'github-actions');
  }

  onTestRunEnd(
    testModules: readonly TestModuleLike[],
    unhandledErrors: readonly unknown[] = [],
    reason = '',
  ): void {
    if (this.addedByPlugin && [...instances()].some((r) => !r.addedByPlugin && r.vitest === this.vitest))
      return;
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
    const summary = printSummary(results, this.options, 'vitest');
    // As under Jest, a quarantined failure stays a failed test for every reporter; only the exit
    // code leaves it out (Vitest set it before calling its reporters).
    if (reason === 'failed' && excused > 0 && unexcused === 0 && process.exitCode === 1) process.exitCode = 0;
    const problems = reportToCi(vitestCases(testModules), factsOf(summary), this.options, {
      runner: 'Vitest',
      startedAt: this.startedAt,
      annotated: this.vitestAnnotates,
    });
    if (problems.length > 0) {
      process.stderr.write(`\njest-understudy: ${problems.join('\njest-understudy: ')}\n`);
      process.exitCode = 1;
    }
  }
}

export { UnderstudyVitestReporter };
