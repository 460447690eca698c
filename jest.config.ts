/** @jest-config-loader esbuild-register */
import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

// The repository tests itself from source: the package entry points are mapped to
// their TypeScript files and transformed by @swc/jest, as a consumer's build would be (the
// sandbox's files with the prologue the bundle starts with: scripts/jest-transform.cjs).
const swc = [
  '<rootDir>/scripts/jest-transform.cjs',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } },
] as const;
const moduleNameMapper = {
  '^jest-understudy$': '<rootDir>/src/index.ts',
  '^jest-understudy/matchers$': '<rootDir>/matchers/index.ts',
  '^jest-understudy/environment$': '<rootDir>/environment/index.ts',
  // As the preset maps it.
  '^msw/node$': '<rootDir>/src/sandbox/msw-node.ts',
};

// Keeps `import()` as it is, so ES-module-only packages (marked, github-slugger) load on any Node
// with --experimental-vm-modules; swc would make it a require(), which only Node >= 24.9 can do for them.
const swcDynamic = [swc[0], { ...swc[1], module: { type: 'commonjs', ignoreDynamic: true } }] as const;

const shared = {
  transform: { '/__tests__/docs/markdown\\.ts$': swcDynamic, '^.+\\.(t|j)sx?$': swc },
  // jest-runtime with V8's code cache for the modules it compiles (see the file).
  runtime: '<rootDir>/scripts/jest-runtime.cjs',
  moduleNameMapper,
  testEnvironment: '<rootDir>/environment/index.ts',
  setupFilesAfterEnv: ['<rootDir>/presets/setup.ts'],
};

const config: Config = {
  // Many suites wait on child processes (a child Jest, the CLI, Chromium): two workers overlap
  // that waiting even on a 2-core machine, where Jest's default would be one.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // Packs the package and installs the tarball into a scratch consumer project for the
  // `installed` suites (skipped when UNDERSTUDY_INSTALLED_DIR names one already installed).
  globalSetup: '<rootDir>/__tests__/support/pack.ts',
  globalTeardown: '<rootDir>/__tests__/support/unpack.ts',
  // A file that runs far longer than any should is named on stderr with the process tree.
  reporters: ['default', '<rootDir>/__tests__/support/watchdog-reporter.cjs'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/__tests__/installed/'],
    },
    // Test files run against the packed tarball in a consumer project (see __tests__/support/installed.ts).
    { ...shared, displayName: 'installed', testMatch: ['<rootDir>/__tests__/installed/*.test.ts'] },
    {
      ...shared,
      displayName: 'examples',
      testMatch: ['<rootDir>/examples/**/*.test.ts'],
      // Suites that need options of their own (a quarantine) or fail on purpose: their example's
      // driver test runs them in a child Jest (quarantine.test.ts, timeline.test.ts).
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/examples/quarantine/suite/',
        '<rootDir>/examples/booking-agent/regression/',
      ],
    },
  ],
};

export default config;
