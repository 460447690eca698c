/**
 * What to say when a test file uses `understudy` but jest-understudy's environment is not
 * running it. Only the preset sets up everything (environment, setup file, runner, reporter,
 * the msw/node mapping); the environment alone leaves the matchers unregistered. When the setup
 * file ran, the preset (or the setup file) is configured and something replaced the
 * environment: the file's `@jest-environment` docblock, or a `testEnvironment` beside the preset.
 */
import { readFileSync } from 'node:fs';
import { SETUP_KEY } from './bridge';

const NOT_RUNNING = "jest-understudy's environment is not running this test file";

const WITHOUT_PRESET =
  "Set `preset: 'jest-understudy'` in your Jest config (or in this project's entry under `projects`). " +
  "Without the preset, set both `testEnvironment: 'jest-understudy/environment'` and " +
  "`setupFilesAfterEnv: ['jest-understudy/setup']` (the setup file registers the matchers); the preset also " +
  "sets `testRunner: 'jest-understudy/test-runner'`, the jest-understudy reporter, a `moduleNameMapper` " +
  "for `msw/node` and `fakeTimers: { doNotFake: ['queueMicrotask'] }`.";

const WITHOUT_PLUGIN =
  "jest-understudy's Vitest plugin is not running this test file. Add it to the Vitest config: " +
  "`plugins: [understudy()]` with `import understudy from 'jest-understudy/vitest'` (in this project's " +
  'config too, when the workspace has several projects).';

/** What this realm shows: whether the setup file ran, the test file (when a test is running), and whether Vitest runs it. */
export function sandboxFacts(): { setupRan: boolean; testPath?: string; vitest?: boolean } {
  const expect = (globalThis as { expect?: { getState?: () => { testPath?: unknown } } }).expect;
  const path = expect?.getState?.().testPath;
  return {
    setupRan: (globalThis as Record<symbol, unknown>)[SETUP_KEY] === true,
    ...(typeof path === 'string' && { testPath: path }),
    // Vitest's workers set VITEST (and its worker state global): its test files share this realm.
    ...((process.env.VITEST !== undefined || '__vitest_worker__' in globalThis) && { vitest: true }),
  };
}

export function missingEnvironmentMessage({
  setupRan,
  testPath,
  vitest,
}: ReturnType<typeof sandboxFacts>): string {
  if (vitest) return WITHOUT_PLUGIN;
  if (!setupRan) return `${NOT_RUNNING}. ${WITHOUT_PRESET}`;
  const configured =
    "jest-understudy's setup file ran, so the preset (or `jest-understudy/setup`) is configured";
  const pragma = testPath === undefined ? undefined : docblockEnvironment(testPath);
  if (pragma !== undefined)
    return (
      `${NOT_RUNNING}: ${configured}, but the file's docblock \`@jest-environment ${pragma}\` replaces the ` +
      'environment. Remove that line (or make it `@jest-environment jest-understudy/environment`).'
    );
  return (
    `${NOT_RUNNING}: ${configured}, but another test environment replaces it: a \`testEnvironment\` set ` +
    "beside the preset (in the Jest config, or in this project's entry under `projects`). Remove it, or set " +
    'it to `jest-understudy/environment`.'
  );
}

/** The `@jest-environment` pragma of the file's leading docblock, if any. */
function docblockEnvironment(file: string): string | undefined {
  try {
    const { extract, parse } = require('jest-docblock') as typeof import('jest-docblock');
    const value = parse(extract(readFileSync(file, 'utf8')))['jest-environment'];
    const name = Array.isArray(value) ? value[0] : value;
    return typeof name === 'string' && name !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
