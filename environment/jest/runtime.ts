/**
 * What the preset's setup file (./setup.ts) loads on a test file's first use of jest-understudy:
 * the matchers and the file's runtime. Built into the sandbox bundle (scripts/bundle-sandbox.cjs),
 * so a test file that never asserts on an agent nor reaches a mocked host never runs that bundle.
 */
export { lazyMatchers } from '../../matchers/lazy';
export { loadRuntime } from '../../src/sandbox/runtime';
