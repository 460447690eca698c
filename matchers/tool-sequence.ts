import type { MatcherContext, SyncExpectationResult } from 'expect';
import { noteExpectation } from '../src/sandbox/expectations';
import { argsPredicateByTool } from './args';
import { argumentsWhole, type CallKind, callsRead, callText, notRunSection, refuseUnanswered } from './calls';
import { sideBySide, stepText } from './format';
import { assertRunLike } from './guards';
import { EXPECTED_COLOR, printExpected, printReceived, RECEIVED_COLOR, stringify } from './matcher-utils';
import type { TrajectoryMatch } from './modes';
import { type ExpectedStep, parseExpectedSteps, parseTrajectoryOptions } from './options';
import { type ObservedOutcome, outcomeFits, outcomeOf, outcomeText } from './outcome';
import { refuseProbableTypos, unknownToolNotes } from './tool-names';
import { type AlignedRow, type Comparison, compareTrajectory } from './trajectory';
import type { RunLike } from './types';

type Calls = RunLike['toolCalls'];
type Fits = (step: number, call: number) => boolean;

/** The tool calls the agent ran follow `expected` (see `TrajectoryMode` and `ArgsMode`). */
export function toHaveCalledToolSequence(
  this: MatcherContext,
  received: unknown,
  expected: unknown,
  options?: unknown,
): SyncExpectationResult {
  return toolSequence(this, 'called', received, expected, options);
}

/** The same, over every tool call the model requested, whether the agent ran it or not. */
export function toHaveRequestedToolSequence(
  this: MatcherContext,
  received: unknown,
  expected: unknown,
  options?: unknown,
): SyncExpectationResult {
  return toolSequence(this, 'requested', received, expected, options);
}

function toolSequence(
  context: MatcherContext,
  kind: CallKind,
  received: unknown,
  expected: unknown,
  options: unknown,
): SyncExpectationResult {
  const matcher = kind === 'called' ? 'toHaveCalledToolSequence' : 'toHaveRequestedToolSequence';
  const hint = context.utils.matcherHint(matcher, undefined, 'expected', {
    isNot: context.isNot,
    promise: context.promise,
    secondArgument: options === undefined ? undefined : 'options',
  });
  assertRunLike(received, hint);
  const steps = parseExpectedSteps(hint, expected);
  const { mode, args, argsBy, written } = parseTrajectoryOptions(hint, options);
  refuseUnanswered(
    hint,
    kind,
    matcher,
    steps.map((s, i) => ({ outcome: s.outcome, label: `expected[${i}].outcome` })),
  );
  // A misspelt step under .not makes the forbidden sequence impossible, so it would pass.
  if (context.isNot)
    refuseProbableTypos(
      hint,
      received,
      steps.map((s, i) => ({ name: s.name, label: `expected[${i}]` })),
    );
  const { calls, notRun } = callsRead(received, kind);

  const argsFor = argsPredicateByTool(context, args, argsBy);
  const outcomes = calls.map((call) => outcomeOf(received, call));
  // `args: 'ignore'` (for the tool) names no arguments, so a cut call still fits by name.
  const ignoresArgs = (tool: string) => (argsBy[tool] ?? args) === 'ignore';
  const argsFit: Fits = (i, j) =>
    steps[i].name === calls[j].name &&
    (!steps[i].hasArgs ||
      ignoresArgs(steps[i].name) ||
      (argumentsWhole(calls[j]) && argsFor(steps[i].name)(calls[j].arguments, steps[i].args)));
  const fits: Fits = (i, j) => argsFit(i, j) && outcomeFits(outcomes[j], steps[i].outcome);
  // Received steps show how they ended when some expected step asks about it.
  const showOutcomes = steps.some((s) => s.outcome !== undefined);
  const callLine = (j: number) => callText(calls[j]) + (showOutcomes ? ` → ${outcomeText(outcomes[j])}` : '');
  const comparison = compareTrajectory(mode, steps.length, calls.length, fits);
  const sequential = mode === 'exact' || mode === 'ordered';
  const firstBreak = comparison.rows.find((row) => !row.ok);

  // Formatted only when a message is read: a passing assertion prints nothing.
  const table = () =>
    sideBySide(
      comparison.rows.map((row) => ({
        expected:
          row.expected === undefined
            ? undefined
            : { index: row.expected, text: stepLine(steps[row.expected]) },
        received:
          row.received === undefined ? undefined : { index: row.received, text: callLine(row.received) },
        // In a sequence everything after the first break follows from it, so only that row is marked.
        marked: sequential ? row === firstBreak : !row.ok,
      })),
    );
  const byTool = Object.entries(argsBy).map(
    ([tool, how]) =>
      `${tool}: ${typeof how === 'function' ? 'function' : Array.isArray(how) ? `[${how.join(', ')}]` : how}`,
  );
  const setting = `mode: ${written.mode}, args: ${written.args}${byTool.length > 0 ? `, argsBy: { ${byTool.join('; ')} }` : ''}`;

  const verb = kind === 'called' ? 'call' : 'request';
  const result = (): SyncExpectationResult => {
    if (comparison.pass) {
      return {
        pass: true,
        message: () =>
          `${hint}\n\nexpected the run not to ${verb} the tool sequence (${setting}), but it did\n\n${table()}`,
      };
    }
    return {
      pass: false,
      message: () =>
        [
          hint,
          `expected the run to ${verb} the tool sequence (${setting}); ` +
            `${count(steps.length, 'step')} expected, ${count(calls.length, 'call')} received` +
            (notRun.length > 0 ? ` (the agent ran them; ${notRun.length} more requested, never run)` : ''),
          table(),
          sequential
            ? divergence(firstBreak!, { comparison, mode, steps, calls, outcomes, fits, argsFit })
            : unmatched(comparison, mode, steps, callLine),
          ...cutNotes(comparison, steps, calls),
          // The table already shows every call, so only the likely typos are worth a line.
          ...unknownToolNotes(received, missingNames(comparison, steps), {
            ran: kind === 'called',
            listCalled: false,
          }),
          ...notRunSection(received, notRun, matcher),
        ].join('\n\n'),
    };
  };
  const outcome = result();
  // A failed expectation (either way round) goes into the test's trace and timeline.
  if (comparison.pass === context.isNot) {
    noteExpectation({
      matcher,
      negated: context.isNot ?? false,
      mode: written.mode,
      args: written.args,
      expected: steps.map((s) => (s.hasArgs ? { name: s.name, args: s.args } : { name: s.name })),
      actual: calls.map((c) => ({ name: c.name, args: c.arguments })),
      rows: comparison.rows.map((r) => ({
        ...(r.expected !== undefined && { expected: r.expected }),
        ...(r.received !== undefined && { received: r.received }),
        ok: r.ok,
      })),
      ...(sequential && firstBreak && { divergence: comparison.rows.indexOf(firstBreak) }),
      message: outcome.message(),
      received,
    });
  }
  return outcome;
}

/** A missing step with arguments whose namesake calls were cut: no argument expectation holds for those. */
function cutNotes(comparison: Comparison, steps: ExpectedStep[], calls: Calls): string[] {
  const notes: string[] = [];
  for (const i of comparison.missing) {
    if (!steps[i].hasArgs) continue;
    const cut = calls.flatMap((c, j) => (c.name === steps[i].name && !argumentsWhole(c) ? [j] : []));
    if (cut.length > 0)
      notes.push(
        `expected step ${i} ${printExpected(steps[i].name)} cannot match received step ${cut.join(', ')}: its arguments were cut (they never completed on the wire), so no argument expectation holds for it`,
      );
  }
  return [...new Set(notes)];
}

/** Names of the expected steps no call was paired with. */
const missingNames = (comparison: Comparison, steps: ExpectedStep[]) =>
  comparison.missing.map((i) => steps[i].name);

const stepLine = (step: ExpectedStep) =>
  stepText(step.name, step.args, step.hasArgs) + (step.outcome ? ` → ${outcomeText(step.outcome)}` : '');
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
const compact = (value: unknown) => stringify(value).replace(/\s*\n\s*/g, ' ');

/** What a sequence's failure is explained from. */
interface Compared {
  comparison: Comparison;
  mode: TrajectoryMatch;
  steps: ExpectedStep[];
  calls: Calls;
  outcomes: ObservedOutcome[];
  fits: Fits;
  /** Name and arguments fit, whatever the outcome. */
  argsFit: Fits;
}

/** The first row that breaks an exact or ordered sequence, in words. */
function divergence(row: AlignedRow, compared: Compared): string {
  const { mode, steps, calls, outcomes } = compared;
  const step = row.expected === undefined ? undefined : steps[row.expected];
  const call = row.received === undefined ? undefined : calls[row.received];
  // Arguments and outcomes only help the reader when the names agree.
  const sameName = step !== undefined && call !== undefined && step.name === call.name;
  const ended = sameName && step.outcome !== undefined ? outcomes[row.received!] : undefined;

  const expectedPart = step
    ? `expected ${printExpected(step.name)}` +
      (sameName && step.hasArgs ? ` with ${EXPECTED_COLOR(compact(step.args))}` : '') +
      (ended ? ` ending ${EXPECTED_COLOR(outcomeText(step.outcome!))}` : '')
    : 'expected no more calls';
  const receivedPart = call
    ? `received ${printReceived(call.name)}` +
      (sameName
        ? ` with ${RECEIVED_COLOR(compact(call.arguments))}${argumentsWhole(call) ? '' : ' (arguments cut: they never completed on the wire)'}`
        : '') +
      (ended ? ` ending ${RECEIVED_COLOR(outcomeText(ended))} (${ended.via})` : '')
    : mode === 'exact'
      ? `but the run made only ${count(calls.length, 'call')}`
      : 'but no call in order matches it';
  const where =
    mode === 'exact'
      ? `step ${row.expected ?? row.received}`
      : `expected step ${row.expected}` +
        (row.received === undefined ? '' : ` (received step ${row.received})`);
  const note = row.expected === undefined ? '' : elsewhere(row.expected, row, compared);
  return `first divergence at ${where}: ${expectedPart}, ${receivedPart}${note}`;
}

/** Points at a call that would have satisfied the step had it been in place, or nearly does. */
function elsewhere(stepIndex: number, row: AlignedRow, compared: Compared) {
  const { comparison, steps, calls, outcomes, fits, argsFit } = compared;
  const pairedWith = new Map<number, number>();
  for (const r of comparison.rows) {
    if (r.ok && r.expected !== undefined && r.received !== undefined) pairedWith.set(r.received, r.expected);
  }
  const others = calls.map((_, j) => j).filter((j) => j !== row.received);
  const matching = others.filter((j) => fits(stepIndex, j));
  const free = matching.find((j) => !pairedWith.has(j));
  if (free !== undefined) return `\n(a matching call occurs at received step ${free}, out of place)`;
  if (matching.length > 0) {
    const j = matching[0];
    return `\n(received step ${j} also matches, but it is paired with expected step ${pairedWith.get(j)})`;
  }
  const { name, outcome } = steps[stepIndex];
  const namesake = others.find((j) => calls[j].name === name);
  if (namesake === undefined) return '';
  // Same name and arguments: then only the way the call ended kept it from matching.
  if (outcome !== undefined && argsFit(stepIndex, namesake)) {
    const ended = outcomes[namesake];
    return `\n(received step ${namesake} calls ${printReceived(name)} with these arguments, but it ended ${RECEIVED_COLOR(outcomeText(ended))} (${ended.via}))`;
  }
  if (!argumentsWhole(calls[namesake]))
    return `\n(received step ${namesake} calls ${printReceived(name)}, but its arguments were cut: they never completed on the wire)`;
  return `\n(received step ${namesake} calls ${printReceived(name)} with other arguments: ${RECEIVED_COLOR(compact(calls[namesake].arguments))})`;
}

/** For unordered modes: what stayed unpaired, as far as the mode cares. */
function unmatched(
  comparison: Comparison,
  mode: TrajectoryMatch,
  steps: ExpectedStep[],
  callLine: (j: number) => string,
): string {
  const sections: string[] = [];
  if (mode !== 'within' && comparison.missing.length > 0) {
    sections.push(
      `expected steps with no matching call (${comparison.missing.length}):\n` +
        comparison.missing.map((i) => `  ${i} ${EXPECTED_COLOR(stepLine(steps[i]))}`).join('\n'),
    );
  }
  if (mode !== 'contains' && comparison.unexpected.length > 0) {
    sections.push(
      `calls matching no expected step (${comparison.unexpected.length}):\n` +
        comparison.unexpected.map((j) => `  ${j} ${RECEIVED_COLOR(callLine(j))}`).join('\n'),
    );
  }
  return sections.join('\n\n');
}
