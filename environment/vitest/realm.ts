/**
 * What the Vitest adapter takes from the test file's side of the package: the runtime, the
 * matchers and the `understudy` handle (the fixtures of ./test.mts). Built into the same bundle as
 * the package entry (scripts/bundle-sandbox.cjs), so the runtime the session creates is the one
 * `jest-understudy` hands the test (its bindings, runs and errors are that copy's).
 */
export { lazyMatchers } from '../../matchers/lazy';
export { loadRuntime } from '../../src/sandbox/runtime';
export { understudy } from '../../src/understudy';
