/**
 * What each runner says in its own words, where a driver's expectation would otherwise name one
 * runner's: the status its JSON results give a skipped test (Jest's `pending`, Vitest's
 * `skipped`), and the name of its test API in a message about it.
 */
import type { Runner } from './installed';

/** A skipped test's status in the runner's JSON results. */
export const SKIPPED: Record<Runner, string> = {
  'jest-cjs': 'pending',
  'jest-esm': 'pending',
  vitest: 'skipped',
};

/** Every runner a case runs under, for `describe.each`. */
export const ALL_RUNNERS: readonly Runner[] = ['jest-cjs', 'jest-esm', 'vitest'];
