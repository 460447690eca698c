/**
 * The installed case projects that share child runs. When a run of the installed suites starts,
 * the projects of the drivers it selected run together, each runner's in one child Jest
 * (__tests__/support/shared-runs.ts); a driver then reads its project's results with
 * `sharedRun(name, runner)`. A run that filters by test name (or by changed files, a shard…) runs
 * each project a driver asks for in a child of its own instead.
 *
 * A project here sets no process option (environment, arguments, the CLI, a network namespace),
 * starts from a fresh folder, and its driver reads only its files and its folder: the exit code
 * and the output of a shared child belong to every project in it.
 */
import type { InstalledProject, Runner } from '../support/installed';

export interface SharedProject extends InstalledProject {
  /** The test file in __tests__/installed that reads it. */
  driver: string;
  /** The runners it runs under: one project folder for each. */
  runners: readonly Runner[];
}

const BOTH = ['jest-cjs', 'jest-esm'] as const;
/** Jest CommonJS, Jest ESM and Vitest. */
const ALL = ['jest-cjs', 'jest-esm', 'vitest'] as const;
const CJS = ['jest-cjs'] as const;
const ESM = ['jest-esm'] as const;

export const SHARED = {
  smoke: { driver: 'smoke.test.ts', cases: ['smoke.case.js'], runners: ALL },
  errors: { driver: 'errors.test.ts', cases: ['errors.case.js'], runners: CJS },
  contracts: { driver: 'contracts.test.ts', cases: ['contracts.case.js'], runners: BOTH },
  mcp: { driver: 'mcp.test.ts', cases: ['mcp.case.js'], runners: BOTH },
  surface: {
    driver: 'surface.test.ts',
    cases: ['surface-bedrock.case.js', 'surface-dialects.case.js', 'surface-embeddings.case.js'],
    runners: BOTH,
  },
  delivered: {
    driver: 'delivered.test.ts',
    cases: ['delivered-inprocess.case.js', 'delivered-timers.case.js'],
    runners: BOTH,
  },
  'delivered-served': {
    driver: 'delivered-served.test.ts',
    cases: ['delivered-served.case.js'],
    runners: BOTH,
  },
  'fidelity-requests': {
    driver: 'fidelity-requests.test.ts',
    cases: ['fidelity-requests.case.js'],
    runners: CJS,
  },
  'fidelity-tools': { driver: 'fidelity-tools.test.ts', cases: ['fidelity-tools.case.js'], runners: CJS },
  'ownership-late': { driver: 'ownership.test.ts', cases: ['ownership-late.case.js'], runners: CJS },
  'ownership-served': { driver: 'ownership.test.ts', cases: ['ownership-served.case.js'], runners: CJS },
  'ownership-concurrent': {
    driver: 'ownership.test.ts',
    cases: ['ownership-concurrent.case.js'],
    runners: BOTH,
  },
  pyramid: {
    driver: 'pyramid.test.ts',
    cases: ['pyramid-matchers.case.js', 'pyramid-timeline.case.js'],
    runners: CJS,
  },
  'pyramid-runs': {
    driver: 'pyramid-runs.test.ts',
    cases: [
      'pyramid-scenario.case.js',
      'pyramid-sweep.case.js',
      'pyramid-crash.case.js',
      'pyramid-providers.case.js',
    ],
    runners: CJS,
  },
  runs: {
    driver: 'runs.test.ts',
    cases: [
      'runs-fake-timers.case.js',
      'runs-errored.case.js',
      'runs-errored-file.case.js',
      'runs-drill.case.js',
      'runs-golden.case.js',
      'runs-leak.case.js',
    ],
    runners: CJS,
  },
  'runs-fake-timers': { driver: 'runs.test.ts', cases: ['runs-fake-timers.case.js'], runners: ESM },
  truthful: {
    driver: 'truthful.test.ts',
    cases: [
      'truthful-called.case.js',
      'truthful-looks.case.js',
      'truthful-messages.case.js',
      'truthful-names.case.js',
      'truthful-mcp.case.js',
    ],
    runners: CJS,
  },
  'truthful-checks': {
    driver: 'truthful.test.ts',
    cases: ['truthful-called.case.js', 'truthful-looks.case.js', 'truthful-messages.case.js'],
    runners: ESM,
  },
  'reported-outcomes': {
    driver: 'reported-outcomes.test.ts',
    cases: ['reported-outcomes.case.js'],
    runners: ALL,
  },
  'workspace-changes': {
    driver: 'workspace-changes.test.ts',
    cases: ['workspace-changes.case.js'],
    runners: BOTH,
  },
  'validation-use': { driver: 'validation.test.ts', cases: ['validation-use.case.js'], runners: BOTH },
  // Without the preset: the bare config, and the pair of options the message names.
  'env-missing': {
    driver: 'modes-and-messages.test.ts',
    cases: ['env-missing.case.js'],
    config: { preset: undefined },
    runners: CJS,
  },
  'env-pair': {
    driver: 'modes-and-messages.test.ts',
    cases: ['smoke.case.js'],
    config: {
      preset: undefined,
      testEnvironment: 'jest-understudy/environment',
      setupFilesAfterEnv: ['jest-understudy/setup'],
    },
    runners: CJS,
  },
} satisfies Record<string, SharedProject>;

export type SharedName = keyof typeof SHARED;
