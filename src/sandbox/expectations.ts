import type { ExpectationNote } from '../run/evidence';
import { getContext, hasEnvironment } from './runtime';

/** The name of the expectation being checked now (set by `namedExpectation`). */
let source: string | undefined;

/**
 * A matcher reports a failed trajectory expectation, so the test's trace and timeline can
 * show expected vs actual at the top. Does nothing outside the environment.
 */
export function noteExpectation(note: ExpectationNote): void {
  if (!hasEnvironment()) return;
  try {
    getContext().evidence.noteExpectation(source === undefined ? note : { ...note, source });
  } catch {
    // Evidence is a courtesy: never turn an assertion into a different failure.
  }
}

/**
 * Runs an assertion that stands for something the reader knows by name (an entry of a golden
 * file): its failure message starts with `name: `, and its trace and timeline name it.
 */
export function namedExpectation(name: string, assertion: () => void): void {
  const outer = source;
  source = name;
  try {
    assertion();
  } catch (error) {
    prefixMessage(error, `${name}: `);
    throw error;
  } finally {
    source = outer;
  }
}

function prefixMessage(error: unknown, prefix: string): void {
  if (typeof error !== 'object' || error === null) return;
  const e = error as { message?: unknown; stack?: unknown };
  if (typeof e.message !== 'string') return;
  try {
    const message = e.message;
    // Jest prints the stack, which starts with the message it was created with.
    if (typeof e.stack === 'string' && e.stack.includes(message))
      e.stack = e.stack.replace(message, () => prefix + message);
    e.message = prefix + message;
  } catch {
    // a frozen error keeps its own words
  }
}
