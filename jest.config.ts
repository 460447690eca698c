/** @jest-config-loader esbuild-register */
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from 'jest';
import { environment, fromSource } from './scripts/jest-options.cjs';

// The repository tests itself from source (scripts/jest-options.cjs), in two tiers:
// - unit (`npm run test:unit`): in process, no build, no pack, no child process
//   (__tests__/support/no-processes.ts refuses one); the tests of each module in
//   __tests__/unit/<the module's folder>, and the repository's own checks;
// - e2e (`npm run test:e2e`): whatever starts processes: child Jest runs from source, the CLI,
//   Chromium, network namespaces (__tests__/e2e), the packed package in a consumer project
//   (__tests__/installed) and the example agents.
// A test file of __tests__ runs under Jest's node environment unless its docblock names
// jest-understudy's: `@jest-environment ./environment/jest/index.ts`.

// The suite loads the same modules in hundreds of processes (workers, child Jest runs, the CLI):
// Node's on-disk compile cache spares compiling them again (Node 22.1+; an older Node ignores it),
// as does scripts/jest-runtime.cjs for what Jest compiles. Workers and children inherit it.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'understudy-compile-cache');

const { setupFilesAfterEnv } = environment;
const tier = { ...fromSource, testEnvironment: 'node', setupFilesAfterEnv };
// Builds and packs the package (cached by the sources' content) and installs the tarball into a
// scratch consumer project; only a run with tests of these projects pays for it.
const packed = {
  globalSetup: '<rootDir>/__tests__/support/pack.ts',
  globalTeardown: '<rootDir>/__tests__/support/unpack.ts',
};

const config: Config = {
  // Many suites wait on child processes (a child Jest, the CLI, Chromium): two workers overlap
  // that waiting even on a 2-core machine, where Jest's default would be one.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // A file that runs far longer than any should is named on stderr with the process tree.
  reporters: ['default', '<rootDir>/__tests__/support/watchdog-reporter.cjs'],
  projects: [
    {
      ...tier,
      displayName: 'unit',
      setupFilesAfterEnv: ['<rootDir>/__tests__/support/no-processes.ts', ...setupFilesAfterEnv],
      testMatch: [
        '<rootDir>/__tests__/unit/**/*.test.ts',
        '<rootDir>/__tests__/architecture/*.test.ts',
        '<rootDir>/__tests__/docs/*.test.ts',
      ],
    },
    { ...tier, ...packed, displayName: 'e2e', testMatch: ['<rootDir>/__tests__/e2e/**/*.test.ts'] },
    // Test files run against the packed tarball in a consumer project (see __tests__/support/installed.ts).
    {
      ...tier,
      ...packed,
      globalSetup: '<rootDir>/__tests__/support/installed-setup.ts',
      displayName: 'installed',
      testMatch: ['<rootDir>/__tests__/installed/*.test.ts'],
    },
    {
      ...fromSource,
      ...environment,
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

/**
 * `UNDERSTUDY_TIER` (set by `npm run test:unit` and `test:e2e`) keeps the projects of one tier, so
 * whatever follows the npm script (a path, `-t`) reaches Jest as it would without the tier.
 */
const TIERS: Record<string, string[]> = { unit: ['unit'], e2e: ['e2e', 'installed', 'examples'] };
const tierName = process.env.UNDERSTUDY_TIER;
if (tierName !== undefined) {
  const names = TIERS[tierName];
  if (!names)
    throw new Error(`UNDERSTUDY_TIER: expected one of ${Object.keys(TIERS).join(', ')}, got "${tierName}"`);
  config.projects = config.projects?.filter(
    (project) => typeof project === 'object' && names.includes(String(project.displayName)),
  );
}

export default config;
