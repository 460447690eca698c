/**
 * Which of a run's tool calls a matcher reads. "Called" means the agent ran the call: it sent
 * a result back, or a world operation served it. The called matchers (`toHaveCalledTool`,
 * `toHaveCalledToolSequence`, `toOnlyCallTools`, `toNeverCallTools`) read only those, so an
 * agent that drops the model's request never passes for having run it. The requested matchers
 * (`toHaveRequestedTool`, `toHaveRequestedToolSequence`) read every call the model asked for,
 * run or not. A call whose arguments never completed on the wire matches no expectation on
 * its arguments, whichever matcher reads it.
 */
import { stepText } from './format';
import { matcherError } from './guards';
import { EXPECTED_COLOR, matcherErrorMessage, printExpected, printWithType } from './matcher-utils';
import { ran } from './outcome';
import type { OutcomeExpectation, RunLike } from './types';

export type CallKind = 'called' | 'requested';

type Call = RunLike['toolCalls'][number];

export interface CallsRead {
  /** The calls a matcher compares, in order. */
  calls: Call[];
  /** Each compared call's position in `run.toolCalls`. */
  positions: number[];
  /** Positions in `run.toolCalls` the model requested that the agent never ran (left out under 'called'). */
  notRun: number[];
}

export function callsRead(run: RunLike, kind: CallKind): CallsRead {
  const all = run.toolCalls;
  if (kind === 'requested') return { calls: [...all], positions: all.map((_, i) => i), notRun: [] };
  const calls: Call[] = [];
  const positions: number[] = [];
  const notRun: number[] = [];
  all.forEach((call, i) => {
    if (ran(run, call)) {
      calls.push(call);
      positions.push(i);
    } else notRun.push(i);
  });
  return { calls, positions, notRun };
}

/** Whether `call` can meet an expectation on its arguments: not when they were cut. */
export const argumentsWhole = (call: Call): boolean => call.incomplete !== true;

/** `name {"args"}`, marked when its arguments were cut. */
export function callText(call: Call): string {
  return stepText(call.name, call.arguments) + (call.incomplete ? ' (arguments cut)' : '');
}

/**
 * The requested calls a called matcher left out, listed under the failure: the reader sees
 * what the model asked for that the agent never ran.
 */
export function notRunSection(run: RunLike, notRun: readonly number[], matcher: string): string[] {
  if (notRun.length === 0) return [];
  const them = notRun.length === 1 ? 'it' : 'them';
  return [
    `Requested by the model but never run (no result went back, no world operation served ${them}), so ${matcher} does not count ${them}:\n` +
      notRun.map((i) => `  toolCalls[${i}] ${callText(run.toolCalls[i])}`).join('\n') +
      `\nTo assert the model's request itself, use ${requestedName(matcher)}.`,
  ];
}

const requestedName = (matcher: string) =>
  matcher === 'toHaveCalledToolSequence' ? 'toHaveRequestedToolSequence' : 'toHaveRequestedTool';

/**
 * Under a called matcher, an expected outcome `unanswered` (a request the agent never ran) can
 * never hold, so `.not` would always pass: a usage error instead, pointing at the matcher that
 * reads requests.
 */
export function refuseUnanswered(
  hint: string,
  kind: CallKind,
  matcher: string,
  expected: ReadonlyArray<{ outcome?: OutcomeExpectation; label: string }>,
): void {
  if (kind !== 'called') return;
  const bad = expected.find((e) => e.outcome?.outcome === 'unanswered');
  if (!bad) return;
  throw matcherError(
    matcherErrorMessage(
      hint,
      `${EXPECTED_COLOR(bad.label)} asks for outcome "unanswered": a call the agent never ran, which ${matcher} does not count (it counts the calls the agent ran); assert the model's request with ${requestedName(matcher)}`,
      printWithType('outcome', 'unanswered', printExpected),
    ),
  );
}
