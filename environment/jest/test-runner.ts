/**
 * The preset's test runner: Jest's own (jest-circus), plus one thing. After a test file
 * ran, it asks the environment for the file's report (agent runs, model calls replayed,
 * operations, unmatched requests, traces written) and attaches it to the file's test
 * result as `understudy`, with each test's status, tags and quarantine (a quarantined test's
 * failure is left out of the file's failure count, so it does not fail the run). Test results are what Jest carries from its workers to the
 * reporters, so the counts reach `jest-understudy/reporter` with any number of workers
 * and on every `--shard`, without files or globals shared between test files.
 */
import { dirname } from 'node:path';
import { type FileResultLike, reportTests } from '../../src/reporter/results';
import type { UnderstudyFileReport } from './index';

type Framework = (...args: unknown[]) => Promise<Record<string, unknown>>;

/**
 * The jest-circus that the project's own Jest would use (resolved from its jest-config,
 * as Jest resolves its default runner), else the one this package depends on.
 */
function circusPath(): string {
  try {
    const jestConfig = require.resolve('jest-config', { paths: [process.cwd()] });
    return require.resolve('jest-circus/runner', { paths: [dirname(jestConfig)] });
  } catch {
    return require.resolve('jest-circus/runner');
  }
}

const circus = require(circusPath()) as Framework | { default: Framework };
const jestAdapter: Framework = typeof circus === 'function' ? circus : circus.default;

interface ReportingEnvironment {
  understudyReport?(): UnderstudyFileReport;
}

function understudyRunner(
  globalConfig: unknown,
  config: unknown,
  environment: ReportingEnvironment,
  runtime: unknown,
  testPath: string,
  sendMessageToJest?: unknown,
): Promise<Record<string, unknown>> {
  // `.then`, not `await`: this function stays out of the async stack traces of failing tests.
  return jestAdapter(globalConfig, config, environment, runtime, testPath, sendMessageToJest).then(
    (result) => {
      if (typeof environment.understudyReport === 'function') {
        let report: UnderstudyFileReport | undefined;
        try {
          report = environment.understudyReport();
        } catch {
          // The report is a courtesy; the test result stands without it.
        }
        if (report) {
          const { tests, excused } = reportTests(result as unknown as FileResultLike, report);
          // A quarantined failure stays a failed test for every reporter; only the count Jest's
          // exit code reads leaves it out.
          (result as { numFailingTests: number }).numFailingTests -= excused;
          result.understudy = { ...report, tests, excused };
        }
      }
      return result;
    },
  );
}

export default understudyRunner;
