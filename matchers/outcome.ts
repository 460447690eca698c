/**
 * How a tool call ended, as the step-outcome assertions see it. The world's evidence is
 * the truth where there is some: a call served by world operations ended as the last of
 * them did (an agent that retries inside one tool call ends with its last attempt). The
 * agent's own report counts too: a result sent back as an error is an error. A call whose
 * result no later request carried, and that no world operation served, is `unanswered`:
 * the model requested it and nothing shows the agent ran it.
 */

import { isPlainObject, matcherError } from './guards';
import { EXPECTED_COLOR, matcherErrorMessage, printExpected, printWithType } from './matcher-utils';
import type { OutcomeExpectation, RunLike, ToolOutcome } from './types';

export const OUTCOMES: readonly ToolOutcome[] = ['ok', 'error', 'unanswered'];

export interface ObservedOutcome {
  outcome: ToolOutcome;
  code?: string;
  /** Where it was read: `operation record-store/records.save #2`, `the tool result`. */
  via: string;
}

type Call = RunLike['toolCalls'][number];

const codeIn = (value: unknown): string | undefined => {
  if (!isPlainObject(value)) return undefined;
  if (typeof value.code === 'string') return value.code;
  return isPlainObject(value.error) && typeof value.error.code === 'string' ? value.error.code : undefined;
};

/** The outcome of `call`, one of `run`'s tool calls. */
export function outcomeOf(run: RunLike, call: Call): ObservedOutcome {
  const seqs = call.operations ?? [];
  const last = seqs.length === 0 ? undefined : run.operations?.find((op) => op.seq === seqs[seqs.length - 1]);
  if (last) {
    const outcome = last.outcome as { kind?: string; error?: unknown } | undefined;
    const via = `operation ${[last.packageId, last.operationId].filter(Boolean).join('/')} #${last.seq}`;
    if (outcome?.kind === 'error') return { outcome: 'error', code: codeIn(outcome.error), via };
    if (call.error !== undefined)
      return { outcome: 'error', code: codeIn(call.error), via: 'the tool result' };
    return { outcome: 'ok', via };
  }
  if (call.error !== undefined) return { outcome: 'error', code: codeIn(call.error), via: 'the tool result' };
  if (call.answered === false) return { outcome: 'unanswered', via: 'no later request carried its result' };
  return { outcome: 'ok', via: 'the tool result' };
}

/**
 * Whether the agent ran `call`: it sent a result back, or a world operation served it. The
 * "called" matchers count only these; the model's requests are `toHaveRequestedTool`'s.
 */
export function ran(run: RunLike, call: Call): boolean {
  return outcomeOf(run, call).outcome !== 'unanswered';
}

/** The outcome asked for, normalised: a code alone means an error. */
export function expectedOutcome(o: OutcomeExpectation): OutcomeExpectation | undefined {
  if (o.outcome === undefined && o.code === undefined) return undefined;
  return { outcome: o.outcome ?? 'error', ...(o.code !== undefined && { code: o.code }) };
}

export function outcomeFits(observed: ObservedOutcome, expected: OutcomeExpectation | undefined): boolean {
  if (!expected) return true;
  if (expected.outcome !== undefined && observed.outcome !== expected.outcome) return false;
  return expected.code === undefined || observed.code === expected.code;
}

/** `error BUSY`, `ok`, `unanswered`. */
export function outcomeText(o: OutcomeExpectation | ObservedOutcome): string {
  return [o.outcome ?? 'error', o.code].filter(Boolean).join(' ');
}

/**
 * Reads `outcome` and `code` from an object the caller already checked for unknown keys.
 * A code with `outcome: 'ok'` can never hold, so it is a usage error rather than a failure.
 */
export function parseOutcome(
  hint: string,
  label: string,
  value: Record<string, unknown>,
): OutcomeExpectation {
  const { outcome, code } = value;
  const bad = (key: string, why: string, got: unknown) =>
    matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR(`${label}.${key}`)} ${why}`,
        printWithType(key, got, printExpected),
      ),
    );
  if (outcome !== undefined && !OUTCOMES.includes(outcome as ToolOutcome))
    throw bad('outcome', `must be one of ${OUTCOMES.map((o) => `"${o}"`).join(', ')}`, outcome);
  if (code !== undefined && (typeof code !== 'string' || code === ''))
    throw bad('code', 'must be an error code string, e.g. "BUSY"', code);
  if (code !== undefined && outcome !== undefined && outcome !== 'error')
    throw bad('code', `goes with outcome "error", not "${String(outcome)}"`, code);
  return {
    ...(outcome !== undefined && { outcome: outcome as ToolOutcome }),
    ...(code !== undefined && { code: code as string }),
  };
}
