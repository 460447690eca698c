import type { ExpectationNote } from '../run/evidence';
import { getRuntime, hasEnvironment } from './runtime';

/**
 * A matcher reports a failed trajectory expectation, so the test's trace and timeline can
 * show expected vs actual at the top. Does nothing outside the environment.
 */
export function noteExpectation(note: ExpectationNote): void {
  if (!hasEnvironment()) return;
  try {
    getRuntime().evidence.noteExpectation(note);
  } catch {
    // Evidence is a courtesy: never turn an assertion into a different failure.
  }
}
