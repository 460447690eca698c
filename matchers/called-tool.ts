import type { MatcherContext, SyncExpectationResult } from 'expect';
import { argsPredicate, trimToShape } from './args';
import { parseBounds, type Range, rangeText, within } from './bounds';
import { argumentsWhole, type CallKind, callsRead, callText, notRunSection, refuseUnanswered } from './calls';
import { assertRunLike, isAsymmetricMatcher, isPlainObject, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printDiffOrStringify,
  printExpected,
  printReceived,
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
import { refuseProbableTypos, unknownToolNotes } from './tool-names';
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

/** Some call the agent ran has this name, arguments containing `args` and the outcome asked for. */
export function toHaveCalledTool(
  this: MatcherContext,
  received: unknown,
  name: unknown,
  args?: unknown,
  options?: unknown,
): SyncExpectationResult {
  return calledTool(this, 'called', received, name, args, options);
}

/** The same, over every call the model requested, whether the agent ran it or not. */
export function toHaveRequestedTool(
  this: MatcherContext,
  received: unknown,
  name: unknown,
  args?: unknown,
  options?: unknown,
): SyncExpectationResult {
  return calledTool(this, 'requested', received, name, args, options);
}

function calledTool(
  context: MatcherContext,
  kind: CallKind,
  received: unknown,
  name: unknown,
  args: unknown,
  options: unknown,
): SyncExpectationResult {
  const matcher = kind === 'called' ? 'toHaveCalledTool' : 'toHaveRequestedTool';
  const hint = context.utils.matcherHint(matcher, undefined, 'name', {
    isNot: context.isNot,
    promise: context.promise,
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
  refuseUnanswered(hint, kind, matcher, [{ outcome, label: 'options.outcome' }]);
  // A misspelt name under .not forbids nothing.
  if (context.isNot) refuseProbableTypos(hint, received, [{ name, label: 'name' }]);

  const all = received.toolCalls;
  const { calls, positions, notRun } = callsRead(received, kind);
  const argsMatch = argsPredicate(context, 'subset');
  const fitsArgs = (call: RunLike['toolCalls'][number]) =>
    args === undefined || (argumentsWhole(call) && argsMatch(call.arguments, args));
  const outcomes = calls.map((call) => outcomeOf(received, call));
  const namesakes = calls.flatMap((call, index) => (call.name === name ? [index] : []));
  const argsHits = namesakes.filter((i) => fitsArgs(calls[i]));
  const hits = argsHits.filter((i) => outcomeFits(outcomes[i], outcome));
  // Formatted only when a message is read: a passing assertion prints nothing.
  const wanted = () =>
    `${times ? rangeText(times, 'call') : 'a call'} to ${printExpected(name)}` +
    (args === undefined ? '' : ` with arguments matching ${EXPECTED_COLOR(stringify(args))}`) +
    (outcome ? ` ending ${EXPECTED_COLOR(outcomeText(outcome))}` : '');
  const shown = outcome ? outcomes : undefined;
  // Only worth saying when some request was left out.
  const what = notRun.length > 0 ? ' the agent ran' : '';

  if (times ? within(hits.length, times) : hits.length > 0) {
    return {
      pass: true,
      message: () =>
        `${hint}\n\nExpected: not ${wanted()}\nReceived: ${count(hits.length)} such ${hits.length === 1 ? 'call' : 'calls'}${what}` +
        (hits.length > 0 ? `\n${listCalls(calls, positions, shown, hits)}` : ''),
    };
  }

  return {
    pass: false,
    message: () => {
      const lines = [hint, `Expected: ${wanted()}`];
      lines.push(
        calls.length === 0
          ? kind === 'called' && notRun.length > 0
            ? 'Received: the agent ran no tool calls'
            : 'Received: the run made no tool calls'
          : `Received ${calls.length === 1 ? '1 call' : `${calls.length} calls`}${what}` +
              (times ? `, ${hits.length} of them such` : '') +
              `:\n${listCalls(calls, positions, shown)}`,
      );
      // The model asked for just this, and the agent never ran it: say so before anything else.
      const dropped = notRun.filter((i) => all[i].name === name && fitsArgs(all[i]));
      if (dropped.length > 0) {
        lines.push(
          dropped
            .map(
              (i) =>
                `The model requested ${printReceived(callText(all[i]))} (step ${i}), but the agent never ran it: ` +
                'no later request carried its result and no world operation served it.',
            )
            .join('\n') +
            `\n${matcher} counts the calls the agent ran; to assert the model's request itself, use toHaveRequestedTool.`,
        );
      }
      const cut = namesakes.filter((i) => args !== undefined && !argumentsWhole(calls[i]));
      if (cut.length > 0) {
        lines.push(
          `${cut.length === 1 ? 'The call' : 'Calls'} to ${printExpected(name)} at step ${cut.map((i) => positions[i]).join(', ')} cannot match arguments: ` +
            'they were cut (they never completed on the wire), so no argument expectation holds for them.',
        );
      }
      if (outcome && argsHits.length > hits.length && hits.length === 0) {
        lines.push(
          `${argsHits.length === 1 ? 'The call' : 'Calls'} to ${printExpected(name)}` +
            (args === undefined ? '' : ' with matching arguments') +
            ` ended otherwise:\n${argsHits.map((i) => `  step ${positions[i]}: ${RECEIVED_COLOR(outcomeText(outcomes[i]))} (${outcomes[i].via})`).join('\n')}`,
        );
      } else if (times && hits.length > 0) {
        lines.push(`Such calls: ${hits.map((i) => `step ${positions[i]}`).join(', ')}`);
      } else if (namesakes.length > cut.length && args !== undefined) {
        const whole = namesakes.filter((i) => argumentsWhole(calls[i]));
        const closest = closestCall(context, calls, whole, args);
        lines.push(
          `Closest call to ${printExpected(name)} (step ${positions[closest]}):\n` +
            printDiffOrStringify(
              args,
              trimToShape(calls[closest].arguments, args),
              'Expected',
              'Received',
              false,
            ),
        );
      } else if (namesakes.length === 0 && dropped.length === 0) {
        lines.push(...unknownToolNotes(received, [name], { ran: kind === 'called' }));
      }
      if (dropped.length === 0) lines.push(...notRunSection(received, notRun, matcher));
      return lines.join('\n\n');
    },
  };
}

const count = (n: number) => (n === 0 ? 'no' : String(n));

/** One line per call, numbered by its position in the run's `toolCalls`; with outcomes, how each ended. */
function listCalls(
  calls: RunLike['toolCalls'],
  positions: readonly number[],
  outcomes?: ObservedOutcome[],
  only?: number[],
): string {
  const indices = only ?? calls.map((_, i) => i);
  const width = String(Math.max(0, ...indices.map((i) => positions[i]))).length;
  return indices
    .map(
      (i) =>
        `  ${String(positions[i]).padStart(width)} ${callText(calls[i])}` +
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
