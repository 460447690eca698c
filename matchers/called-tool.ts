import type { MatcherContext, SyncExpectationResult } from 'expect';
import { argsPredicate, trimToShape } from './args';
import { parseBounds, type Range, rangeText, within } from './bounds';
import { stepText } from './format';
import { assertRunLike, isAsymmetricMatcher, isPlainObject, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printDiffOrStringify,
  printExpected,
  printWithType,
  RECEIVED_COLOR,
  stringify,
} from './matcher-utils';
import {
  expectedOutcome,
  type ObservedOutcome,
  outcomeFits,
  outcomeOf,
  outcomeText,
  parseOutcome,
} from './outcome';
import { unknownToolNotes } from './tool-names';
import type { OutcomeExpectation, RunLike } from './types';

const OPTION_KEYS = ['outcome', 'code', 'times'];

function parseOptions(hint: string, options: unknown): { outcome?: OutcomeExpectation; times?: Range } {
  if (options === undefined) return {};
  if (!isPlainObject(options)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('options')} must be an object like { outcome, code, times }`,
        printWithType('options', options, printExpected),
      ),
    );
  }
  const unknownKey = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
  if (unknownKey !== undefined) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('options')} has unknown key "${unknownKey}"; allowed keys: ${OPTION_KEYS.map((k) => `"${k}"`).join(', ')}`,
        printWithType('options', options, printExpected),
      ),
    );
  }
  const outcome = expectedOutcome(parseOutcome(hint, 'options', options));
  return {
    ...(outcome && { outcome }),
    ...(options.times !== undefined && { times: parseBounds(hint, 'options.times', options.times, true) }),
  };
}

export function toHaveCalledTool(
  this: MatcherContext,
  received: unknown,
  name: unknown,
  args?: unknown,
  options?: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveCalledTool', undefined, 'name', {
    isNot: this.isNot,
    promise: this.promise,
    secondArgument: args === undefined && options === undefined ? undefined : 'args',
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

  const { outcome, times } = parseOptions(hint, options);

  const calls = received.toolCalls;
  const argsMatch = argsPredicate(this, 'subset');
  const outcomes = calls.map((call) => outcomeOf(received, call));
  const namesakes = calls.flatMap((call, index) => (call.name === name ? [index] : []));
  const argsHits = namesakes.filter((i) => args === undefined || argsMatch(calls[i].arguments, args));
  const hits = argsHits.filter((i) => outcomeFits(outcomes[i], outcome));
  const wanted =
    `${times ? rangeText(times, 'call') : 'a call'} to ${printExpected(name)}` +
    (args === undefined ? '' : ` with arguments matching ${EXPECTED_COLOR(stringify(args))}`) +
    (outcome ? ` ending ${EXPECTED_COLOR(outcomeText(outcome))}` : '');
  const shown = outcome ? outcomes : undefined;

  if (times ? within(hits.length, times) : hits.length > 0) {
    return {
      pass: true,
      message: () =>
        `${hint}\n\nExpected: not ${wanted}\nReceived: ${count(hits.length)} such ${hits.length === 1 ? 'call' : 'calls'}` +
        (hits.length > 0 ? `\n${listCalls(calls, shown, hits)}` : ''),
    };
  }

  return {
    pass: false,
    message: () => {
      const lines = [hint, `Expected: ${wanted}`];
      lines.push(
        calls.length === 0
          ? 'Received: the run made no tool calls'
          : `Received ${calls.length === 1 ? '1 call' : `${calls.length} calls`}` +
              (times ? `, ${hits.length} of them such` : '') +
              `:\n${listCalls(calls, shown)}`,
      );
      if (outcome && argsHits.length > hits.length && hits.length === 0) {
        lines.push(
          `${argsHits.length === 1 ? 'The call' : 'Calls'} to ${printExpected(name)}` +
            (args === undefined ? '' : ' with matching arguments') +
            ` ended otherwise:\n${argsHits.map((i) => `  step ${i}: ${RECEIVED_COLOR(outcomeText(outcomes[i]))} (${outcomes[i].via})`).join('\n')}`,
        );
      } else if (times && hits.length > 0) {
        lines.push(`Such calls: ${hits.map((i) => `step ${i}`).join(', ')}`);
      } else if (namesakes.length > 0 && args !== undefined) {
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
      } else if (namesakes.length === 0) {
        lines.push(...unknownToolNotes(received, [name]));
      }
      return lines.join('\n\n');
    },
  };
}

const count = (n: number) => (n === 0 ? 'no' : String(n));

/** One line per call; with outcomes, how each ended. */
function listCalls(calls: RunLike['toolCalls'], outcomes?: ObservedOutcome[], only?: number[]): string {
  const indices = only ?? calls.map((_, i) => i);
  const width = String(Math.max(0, ...indices)).length;
  return indices
    .map(
      (i) =>
        `  ${String(i).padStart(width)} ${stepText(calls[i].name, calls[i].arguments)}` +
        (outcomes ? ` → ${outcomeText(outcomes[i])}` : ''),
    )
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
