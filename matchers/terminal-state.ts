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

  const pass = this.equals(received.terminalState, state, this.customTesters);
  // The run's error is usually why it did not end where the test expected.
  const error = received.error == null ? '' : `\nRun error: ${printReceived(received.error)}`;
  return {
    pass,
    message: () =>
      `${hint}\n\nExpected terminal state: ${pass ? 'not ' : ''}${printExpected(state)}\n` +
      `Received terminal state: ${printReceived(received.terminalState)}${error}`,
  };
}
