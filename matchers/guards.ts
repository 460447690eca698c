import { markError } from '../src/errors';
import { matcherErrorMessage, printReceived, printWithType, RECEIVED_COLOR } from './matcher-utils';
import type { AsymmetricMatcherLike, RunLike } from './types';

export function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcherLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<AsymmetricMatcherLike>).asymmetricMatch === 'function'
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A matcher used wrongly (not a failed assertion): a plain Error, as Jest's own matchers throw,
 * with the code `BAD_ARGUMENT`.
 */
export function matcherError(message: string): Error {
  return markError(new Error(message), 'BAD_ARGUMENT');
}

/**
 * Throws a matcher error (not a failed assertion) when `received` is not run-like:
 * `.not` must not turn "you passed the wrong thing" into a pass.
 */
export function assertRunLike(received: unknown, hint: string): asserts received is RunLike {
  const toolCalls = (received as { toolCalls?: unknown } | null | undefined)?.toolCalls;
  if (typeof received !== 'object' || received === null || !Array.isArray(toolCalls)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} value must be a Run from understudy.run / createAgentHarness ` +
          'or an object with a toolCalls array',
        printWithType('Received', received, printReceived),
      ),
    );
  }
  const bad = toolCalls.findIndex(
    (call) => typeof call !== 'object' || call === null || typeof call.name !== 'string',
  );
  if (bad !== -1) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')}.toolCalls must hold objects with a string name`,
        printWithType(`Received toolCalls[${bad}]`, toolCalls[bad], printReceived),
      ),
    );
  }
}
