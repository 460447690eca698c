import type { MatcherContext, SyncExpectationResult } from 'expect';
import { argsPredicate, trimToShape } from './args';
import { stepText } from './format';
import { assertRunLike, isAsymmetricMatcher, isPlainObject, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printDiffOrStringify,
  printExpected,
  printReceived,
  printWithType,
  stringify,
} from './matcher-utils';
import type { RunLike } from './types';

export function toHaveCalledTool(
  this: MatcherContext,
  received: unknown,
  name: unknown,
  args?: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveCalledTool', undefined, 'name', {
    isNot: this.isNot,
    promise: this.promise,
    secondArgument: args === undefined ? undefined : 'args',
  });
  assertRunLike(received, hint);
  if (typeof name !== 'string' || name === '') {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('name')} must be a non-empty tool name string`,
        printWithType('name', name, printExpected),
      ),
    );
  }
  if (args !== undefined && !isPlainObject(args) && !isAsymmetricMatcher(args)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('args')} must be an object or an asymmetric matcher`,
        printWithType('args', args, printExpected),
      ),
    );
  }

  const calls = received.toolCalls;
  const argsMatch = argsPredicate(this, 'subset');
  const namesakes = calls.flatMap((call, index) => (call.name === name ? [index] : []));
  const hits = namesakes.filter((i) => args === undefined || argsMatch(calls[i].arguments, args));
  const wanted =
    `a call to ${printExpected(name)}` +
    (args === undefined ? '' : ` with arguments matching ${EXPECTED_COLOR(stringify(args))}`);

  if (hits.length > 0) {
    return {
      pass: true,
      message: () =>
        `${hint}\n\nExpected: not ${wanted}\nReceived: ${hits.length} such ${hits.length === 1 ? 'call' : 'calls'}\n` +
        listCalls(calls, hits),
    };
  }

  return {
    pass: false,
    message: () => {
      const lines = [hint, `Expected: ${wanted}`];
      lines.push(
        calls.length === 0
          ? 'Received: the run made no tool calls'
          : `Received ${calls.length === 1 ? '1 call' : `${calls.length} calls`}:\n${listCalls(calls)}`,
      );
      if (namesakes.length > 0 && args !== undefined) {
        const closest = closestCall(this, calls, namesakes, args);
        lines.push(
          `Closest call to ${printExpected(name)} (step ${closest}):\n` +
            printDiffOrStringify(
              args,
              trimToShape(calls[closest].arguments, args),
              'Expected',
              'Received',
              false,
            ),
        );
      } else if (namesakes.length === 0 && calls.length > 0) {
        lines.push(`No call is named ${printReceived(name)}.`);
      }
      return lines.join('\n\n');
    },
  };
}

function listCalls(calls: RunLike['toolCalls'], only?: number[]): string {
  const indices = only ?? calls.map((_, i) => i);
  const width = String(Math.max(0, ...indices)).length;
  return indices
    .map((i) => `  ${String(i).padStart(width)} ${stepText(calls[i].name, calls[i].arguments)}`)
    .join('\n');
}

/** The call agreeing with the most top-level expected keys; the first on a tie. */
function closestCall(
  context: MatcherContext,
  calls: RunLike['toolCalls'],
  candidates: number[],
  args: unknown,
) {
  if (!isPlainObject(args)) return candidates[0];
  const argsMatch = argsPredicate(context, 'subset');
  const score = (i: number) => {
    const actual = calls[i].arguments;
    return Object.keys(args).filter((key) => isPlainObject(actual) && argsMatch(actual, { [key]: args[key] }))
      .length;
  };
  return candidates.reduce((best, i) => (score(i) > score(best) ? i : best));
}
