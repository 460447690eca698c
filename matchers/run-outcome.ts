/**
 * A matcher that fails on a run whose agent threw or timed out says so: the terminal state and
 * the agent's error (name, message, top frames), under whatever the matcher itself reports. The
 * expectation that failed is then rarely the news; the crash is. These reads are the product's,
 * so they never count as the test looking at how the run ended (src/run/outcomes.ts).
 */
import { peek } from '../src/run/outcomes';
import { errorLines, plainError } from '../src/trace/plain';

/** Frames of the agent's stack a failure shows. */
const FRAMES = 5;

/** The note for `received` when it is a run that errored or timed out (or carries an error), else undefined. */
export function runOutcomeNote(received: unknown): string | undefined {
  if (typeof received !== 'object' || received === null || !('terminalState' in received)) return undefined;
  const run = received as { terminalState?: unknown; error?: unknown };
  const state = peek(run, 'terminalState');
  const error = peek(run, 'error');
  if (state !== 'errored' && state !== 'timed_out' && error === undefined) return undefined;
  const how =
    state === 'timed_out'
      ? 'the agent timed out:'
      : state === 'errored'
        ? 'the agent threw'
        : 'the run carries an error:';
  // The error's first line goes on the state's line: tables that show a failure's first lines
  // (a fault sweep's) keep it.
  const [head, ...rest] = errorLines(plainError(error), FRAMES);
  // Jest reads a line that starts with `at` as the start of the failure's own stack (and moves its
  // code frame there), so the agent's frames are marked.
  return [
    `The run ended '${String(state)}': ${how} ${head}`,
    ...rest.map((line) => `  ${line.replace(/^(\s*)at /, '$1↳ at ')}`),
  ].join('\n');
}
