/**
 * The Jest options that run this repository's sources, in one place for every Jest that runs
 * them: the test tiers (jest.config.ts), the child Jest runs of the tests
 * (__tests__/support/child-jest.ts) and the bench (bench/jest.bench.config.ts, bench/world.mjs).
 * Absolute paths, so a config whose rootDir is elsewhere (a child run's) means the same files.
 */
const { join, resolve } = require('node:path');

const root = resolve(__dirname, '..');

/**
 * How Jest reads the sources, as a consumer's build would: the package's entry points mapped to
 * their TypeScript files, compiled by @swc/jest with the prologue the sandbox bundle starts with
 * (./jest-transform.cjs), and jest-runtime with V8's code cache (./jest-runtime.cjs).
 */
const swc = { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } };
const fromSource = {
  transform: {
    // Keeps `import()` as it is, so ES-module-only packages (marked, github-slugger) load on any
    // Node with --experimental-vm-modules; swc would make it a require(), which only Node >= 24.9
    // can do for them.
    '/__tests__/docs/markdown\\.ts$': [
      join(root, 'scripts', 'jest-transform.cjs'),
      { ...swc, module: { type: 'commonjs', ignoreDynamic: true } },
    ],
    '^.+\\.(t|j)sx?$': [join(root, 'scripts', 'jest-transform.cjs'), swc],
  },
  runtime: join(root, 'scripts', 'jest-runtime.cjs'),
  moduleNameMapper: {
    '^jest-understudy$': join(root, 'src', 'index.ts'),
    '^jest-understudy/matchers$': join(root, 'matchers', 'index.ts'),
    '^jest-understudy/environment$': join(root, 'environment', 'jest', 'index.ts'),
    // As the preset maps it.
    '^msw/node$': join(root, 'src', 'sandbox', 'msw-node.ts'),
  },
};

/** jest-understudy's environment and its setup file, from source. */
const environment = {
  testEnvironment: join(root, 'environment', 'jest', 'index.ts'),
  setupFilesAfterEnv: [join(root, 'environment', 'jest', 'setup.ts')],
};

/**
 * The docblock that runs one test file of the tiers under jest-understudy's environment (the
 * tiers' own default is Jest's node environment): `@jest-environment` with this path, which
 * Jest resolves from the repository root.
 */
const ENVIRONMENT_PRAGMA = './environment/jest/index.ts';

/** Everything the preset (environment/jest/jest-preset.js) sets but its reporters, from source. */
const preset = {
  ...environment,
  testRunner: join(root, 'environment', 'jest', 'test-runner.ts'),
  // msw resolves responses on microtasks; faking them would stall every mocked request.
  fakeTimers: { doNotFake: ['queueMicrotask'] },
};

module.exports = { root, fromSource, environment, preset, ENVIRONMENT_PRAGMA };
