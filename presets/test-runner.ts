/**
 * The preset's test runner: Jest's own (jest-circus), plus one thing. After a test file
 * ran, it asks the environment for the file's report (agent runs, model calls replayed,
 * operations, unmatched requests, traces written) and attaches it to the file's test
 * result as `understudy`. Test results are what Jest carries from its workers to the
 * reporters, so the counts reach `jest-understudy/reporter` with any number of workers
 * and on every `--shard`, without files or globals shared between test files.
 */
import { dirname } from 'node:path';
import type { UnderstudyFileReport } from '../environment';

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
        try {
          result.understudy = environment.understudyReport();
        } catch {
          // The report is a courtesy; the test result stands without it.
        }
      }
      return result;
    },
  );
}

export default understudyRunner;
