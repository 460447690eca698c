import type { MatcherContext, SyncExpectationResult } from 'expect';
import { assertRunLike, isAsymmetricMatcher, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
} from './matcher-utils';

export function toHaveTerminalState(
  this: MatcherContext,
  received: unknown,
  state: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveTerminalState', undefined, 'state', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertRunLike(received, hint);
  if (typeof state !== 'string' && !isAsymmetricMatcher(state)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('state')} must be a terminal state string (e.g. "succeeded") or an asymmetric matcher`,
        printWithType('state', state, printExpected),
      ),
    );
  }

  // The test's own look at how the run ended (the agent's error, when there is one, is added
  // under a failure by ./run-outcome.ts).
  const actual = received.terminalState;
  const pass = this.equals(actual, state, this.customTesters);
  return {
    pass,
    message: () =>
      `${hint}\n\nExpected terminal state: ${pass ? 'not ' : ''}${printExpected(state)}\n` +
      `Received terminal state: ${printReceived(actual)}`,
  };
}
