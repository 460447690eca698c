import type { MatcherContext, SyncExpectationResult } from 'expect';
import { peek } from '../src/run/outcomes';
import { assertRunLike, isAsymmetricMatcher, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
} from './matcher-utils';

export function toHaveFinalMessage(
  this: MatcherContext,
  received: unknown,
  expected: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveFinalMessage', undefined, 'expected', {
    isNot: this.isNot,
    promise: this.promise,
  });
  assertRunLike(received, hint);

  const actual = received.finalMessage;
  let pass: boolean;
  let how: string;
  if (typeof expected === 'string') {
    pass = typeof actual === 'string' && actual.includes(expected);
    how = 'containing';
  } else if (expected instanceof RegExp) {
    // A copy, so a /g pattern's lastIndex from an earlier test cannot skew this one.
    pass = typeof actual === 'string' && new RegExp(expected).test(actual);
    how = 'matching';
  } else if (isAsymmetricMatcher(expected)) {
    pass = this.equals(actual, expected, this.customTesters);
    how = 'equal to';
  } else {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('expected')} value must be a string, a RegExp or an asymmetric matcher`,
        printWithType('Expected', expected, printExpected),
      ),
    );
  }

  // Formatted only when the message is read: a passing assertion prints nothing.
  const got = () =>
    actual === undefined
      ? `the run ended without a final message (terminal state: ${printReceived(peek(received, 'terminalState'))})`
      : printReceived(actual);
  return {
    pass,
    message: () =>
      `${hint}\n\nExpected final message: ${pass ? 'not ' : ''}${how} ${printExpected(expected)}\nReceived final message: ${got()}`,
  };
}
