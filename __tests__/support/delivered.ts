/**
 * Checks the delivered-*.case.js files of the installed suites share: each has tests that must
 * pass, and tests named "no false green: …" that assert what a scripted reply would have let
 * pass, and must fail.
 */
import { expect } from '@jest/globals';
import type { ChildFile } from './child-jest';

/** The failure messages of the test with this full name (its describe blocks, then its title). */
export function failureOf(file: ChildFile, fullName: string): string {
  const test = file.tests.find((t) => t.fullName === fullName);
  if (!test) throw new Error(`no test "${fullName}" in ${file.name}`);
  return test.failureMessages.join('\n');
}

/** Every test passed but the "no false green" ones, which failed; returns those. */
export function expectOnlyFalseGreensFailed(file: ChildFile): ChildFile['tests'] {
  const wrong = file.tests.filter((t) => (t.status === 'failed') !== t.title.includes('no false green'));
  expect(wrong.map((t) => `${t.fullName} (${t.status}):\n${t.failureMessages.join('\n')}`)).toEqual([]);
  return file.tests.filter((t) => t.title.includes('no false green'));
}
