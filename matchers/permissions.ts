/**
 * Which tools a run may use: `toOnlyCallTools(allowed)` passes when every call the agent ran
 * is one of the allowed steps, `toNeverCallTools(forbidden)` when none is one of the forbidden
 * steps. A request the agent never ran is no call (a guard that refused it did its job). A
 * step is a tool name or `{ name, args?, outcome?, code? }`, compared as in
 * `toHaveCalledToolSequence` (args as a deep subset). The failure lists every call and
 * marks the ones that break the rule, the first of them named in words.
 */
import type { MatcherContext, SyncExpectationResult } from 'expect';
import { argsPredicate } from './args';
import { argumentsWhole, callsRead, callText, notRunSection, refuseUnanswered } from './calls';
import { stepText } from './format';
import { assertRunLike } from './guards';
import { EXPECTED_COLOR, printExpected, printReceived } from './matcher-utils';
import { type ExpectedStep, parseExpectedSteps } from './options';
import { outcomeFits, outcomeOf, outcomeText } from './outcome';
import { refuseProbableTypos, unknownToolNotes } from './tool-names';
import type { RunLike } from './types';

type Rule = 'only' | 'never';

export function toOnlyCallTools(
  this: MatcherContext,
  received: unknown,
  allowed: unknown,
): SyncExpectationResult {
  return permission(this, 'toOnlyCallTools', 'allowed', 'only', received, allowed);
}

export function toNeverCallTools(
  this: MatcherContext,
  received: unknown,
  forbidden: unknown,
): SyncExpectationResult {
  return permission(this, 'toNeverCallTools', 'forbidden', 'never', received, forbidden);
}

function permission(
  context: MatcherContext,
  matcher: string,
  label: string,
  rule: Rule,
  received: unknown,
  expected: unknown,
): SyncExpectationResult {
  const hint = context.utils.matcherHint(matcher, undefined, label, {
    isNot: context.isNot,
    promise: context.promise,
  });
  assertRunLike(received, hint);
  const steps = parseExpectedSteps(hint, expected);
  refuseUnanswered(
    hint,
    'called',
    matcher,
    steps.map((s, i) => ({ outcome: s.outcome, label: `${label}[${i}].outcome` })),
  );
  // A misspelt forbidden name forbids nothing: the agent could run the real tool and pass.
  if (rule === 'never')
    refuseProbableTypos(
      hint,
      received,
      steps.map((s, i) => ({ name: s.name, label: `${label}[${i}]` })),
    );
  const { calls, positions, notRun } = callsRead(received, 'called');
  const argsMatch = argsPredicate(context, 'subset');
  const fits = (step: ExpectedStep, j: number) =>
    step.name === calls[j].name &&
    (!step.hasArgs || (argumentsWhole(calls[j]) && argsMatch(calls[j].arguments, step.args))) &&
    outcomeFits(outcomeOf(received, calls[j]), step.outcome);
  // For each call, the step it matches (-1: none).
  const matched = calls.map((_, j) => steps.findIndex((step) => fits(step, j)));
  const breaks = matched.flatMap((m, j) => ((rule === 'only' ? m === -1 : m !== -1) ? [j] : []));
  // Formatted only when a message is read: a passing assertion prints nothing.
  const heading = () =>
    `${rule === 'only' ? 'Allowed' : 'Forbidden'}: ${steps.map((s) => printExpected(stepLabel(s))).join(', ') || 'none'}`;
  const table = () => callTable(received, calls, positions, matched, breaks, rule, steps);
  const left = () => notRunSection(received, notRun, matcher);

  if (breaks.length === 0) {
    return {
      pass: true,
      message: () =>
        [
          hint,
          heading(),
          calls.length === 0
            ? `expected the run to call a ${rule === 'only' ? 'tool outside these' : 'forbidden tool'}, but it ${notRun.length > 0 ? 'ran' : 'made'} no tool calls`
            : `expected the run to call a ${rule === 'only' ? 'tool outside these' : 'forbidden tool'}, but ${rule === 'only' ? 'every call was allowed' : 'no call was forbidden'}:\n${table()}`,
          ...left(),
        ].join('\n\n'),
    };
  }
  const first = breaks[0];
  const why = () =>
    rule === 'only'
      ? `first call outside the allowed tools at step ${positions[first]}: ${printReceived(calls[first].name)}`
      : `first forbidden call at step ${positions[first]}: ${printReceived(calls[first].name)} matches ${label}[${matched[first]}] ${EXPECTED_COLOR(stepLabel(steps[matched[first]]))}`;
  return {
    pass: false,
    message: () =>
      [
        hint,
        heading(),
        `Received ${calls.length} ${calls.length === 1 ? 'call' : 'calls'}${notRun.length > 0 ? ' the agent ran' : ''}, ${breaks.length} ${rule === 'only' ? 'not allowed' : 'forbidden'}:\n${table()}`,
        why(),
        // An allowed name nothing called may be a typo of the call that broke the rule.
        ...(rule === 'only'
          ? unknownToolNotes(
              received,
              steps.map((s) => s.name),
              { listCalled: false },
            )
          : []),
        ...left(),
      ].join('\n\n'),
  };
}

function stepLabel(step: ExpectedStep): string {
  return (
    stepText(step.name, step.args, step.hasArgs) + (step.outcome ? ` → ${outcomeText(step.outcome)}` : '')
  );
}

function callTable(
  run: RunLike,
  calls: RunLike['toolCalls'],
  positions: readonly number[],
  matched: number[],
  breaks: number[],
  rule: Rule,
  steps: ExpectedStep[],
): string {
  const width = String(Math.max(0, ...positions)).length;
  const bad = new Set(breaks);
  const anyOutcome = steps.some((s) => s.outcome !== undefined);
  return calls
    .map((call, j) => {
      const text = callText(call) + (anyOutcome ? ` → ${outcomeText(outcomeOf(run, call))}` : '');
      const note = bad.has(j)
        ? rule === 'only'
          ? '   ✗ not allowed'
          : `   ✗ forbidden (${matched[j]})`
        : '';
      return `${bad.has(j) ? '>' : ' '} ${String(positions[j]).padStart(width)} ${text}${note}`;
    })
    .join('\n');
}
