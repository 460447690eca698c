/**
 * One execution of a test body for a sweep or a provider matrix: the file's world back to its
 * starting state and the model's sequences restarted (so every execution starts where the
 * first did), the body run under a session that collects its runs and may answer calls with a
 * fault, then judged: the body threw (a failed `expect`), a drill it returned failed, a run
 * ended badly and the body never looked, or a model request no fixture answered.
 */
import { stripVTControlCharacters } from 'node:util';
import { isUnderstudyError } from '../errors';
import type { ModelCall } from '../model/call';
import type { FileContext } from '../run/context';
import { OutcomeWatch, peek } from '../run/outcomes';
import { type InjectedFault, type ToolCallPoint, withSession } from '../run/session';
import type { Run } from '../run/types';
import type { CriterionResult } from '../world/criteria';
import { deepEqual } from '../world/values';

/** A call as a session saw it reach a world operation or tool fake, in order. */
export interface SeenCall extends ToolCallPoint {
  /** "packageId/operationId". */
  key: string;
  /** 1-based among the calls of this operation in the execution. */
  ordinal: number;
  /** Made inside a run (calls outside runs are the test's own, never swept). */
  inRun: boolean;
}

export interface Execution<T> {
  value: T | undefined;
  /** The body threw this. */
  thrown?: unknown;
  runs: Run<any, any>[];
  calls: SeenCall[];
  /** Why the execution does not pass (empty when it does). */
  reasons: string[];
  /** A drill's failed criteria, when the body returned a drill result. */
  criteria: CriterionResult[];
  /** Whether the fault asked for was answered. */
  injected: boolean;
}

export interface ExecuteOptions {
  /** Labels the runs in the evidence. */
  label: string;
  /** The call to answer with a fault. */
  fault?: { key: string; ordinal: number; fault: InjectedFault };
  /** A session of its own watches errored runs (they are the execution's finding, not the test's failure). */
  ownOutcomes: boolean;
  /** Unmatched model requests are the execution's finding (accepted), not the test's failure. */
  acceptUnmatched: boolean;
  where: string;
}

/** The error's first lines, as a person reads them in a table (no colours). */
export function firstLines(error: unknown, lines = 4): string {
  const text =
    error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)
      ? String((error as Error).message)
      : String(error);
  return stripVTControlCharacters(text)
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '')
    .slice(0, lines)
    .join(' / ');
}

interface DrillLike {
  verdict: string;
  reasons: readonly string[];
  criteria?: readonly CriterionResult[];
}

const isDrillResult = (v: unknown): v is DrillLike =>
  typeof v === 'object' &&
  v !== null &&
  typeof peek(v as DrillLike, 'verdict') === 'string' &&
  Array.isArray(peek(v as DrillLike, 'reasons')) &&
  Array.isArray((v as { trials?: unknown }).trials);

export async function executeBody<T>(
  runtime: FileContext,
  body: () => T | Promise<T>,
  options: ExecuteOptions,
): Promise<Execution<T>> {
  if (runtime.world.loaded) runtime.world.handle.reset();
  runtime.restartModelSequences();
  const runs: Run<any, any>[] = [];
  const calls: SeenCall[] = [];
  const counts = new Map<string, number>();
  const outcomes = options.ownOutcomes ? new OutcomeWatch() : undefined;
  let injected = false;
  const session = {
    ...(outcomes && { outcomes }),
    runEnded: (run: Run<any, any>) => {
      runs.push(run);
      return options.label;
    },
    toolCall: (point: ToolCallPoint) => {
      const key = `${point.packageId}/${point.operationId}`;
      const ordinal = (counts.get(key) ?? 0) + 1;
      counts.set(key, ordinal);
      calls.push({ ...point, key, ordinal, inRun: runtime.runs.getStore() !== undefined });
      const f = options.fault;
      if (f && f.key === key && f.ordinal === ordinal) {
        injected = true;
        return f.fault;
      }
      return undefined;
    },
  };
  let value: T | undefined;
  let thrown: unknown;
  let threw = false;
  await withSession(runtime, session, options.where, async () => {
    try {
      value = await body();
    } catch (error) {
      // A setup mistake is the test's, whatever the fault: it stops the sweep.
      if (isUnderstudyError(error, 'SWEEP_STATEFUL_FAKE') || isUnderstudyError(error, 'BAD_ARGUMENT'))
        throw error;
      threw = true;
      thrown = error;
    }
  });
  const reasons: string[] = [];
  let criteria: CriterionResult[] = [];
  if (threw) reasons.push(`the test body failed: ${firstLines(thrown)}`);
  else if (isDrillResult(value)) {
    // Reading the verdict looks at the trials' runs (their errors are among the reasons).
    if (value.verdict !== 'passed') {
      criteria = (value.criteria ?? []).filter((c) => !c.passed);
      reasons.push(...value.reasons.map((r) => `the drill failed: ${r}`));
    }
  }
  if (outcomes)
    for (const message of [...outcomes.take(true), ...outcomes.take(false)])
      reasons.push(firstLines(message.replace(/^jest-understudy: /, ''), 3));
  const unmatched: ModelCall[] = runs.flatMap((r) => r.modelCalls.filter((c) => c.unmatched));
  if (unmatched.length > 0) {
    reasons.push(
      `${unmatched.length} model request${unmatched.length === 1 ? '' : 's'} no fixture answers (the agent took a path the fixtures do not cover)`,
    );
    if (options.acceptUnmatched) runtime.model.acceptUnmatched(unmatched);
  }
  return { value, ...(threw ? { thrown } : {}), runs, calls, reasons, criteria, injected };
}

/**
 * Where an execution's calls first differ from the baseline's before the faulted call: a
 * replay that is not deterministic cannot say what the fault changed.
 */
export function divergenceBefore(
  baseline: readonly SeenCall[],
  variant: readonly SeenCall[],
  upTo: SeenCall,
): string | undefined {
  const end = baseline.indexOf(upTo);
  for (let i = 0; i < end; i++) {
    const a = baseline[i];
    const b = variant[i];
    if (!b) return `it made ${i} calls before the faulted one, the baseline ${end}`;
    if (a.key !== b.key || !deepEqual(a.input, b.input))
      return `call ${i + 1} was ${b.key} ${JSON.stringify(b.input)}, the baseline's ${a.key} ${JSON.stringify(a.input)}`;
  }
  return undefined;
}
