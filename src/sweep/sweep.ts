/**
 * `understudy.sweep(body | drill, { faults: 'declared' })`: every failure branch of a passing run.
 *
 * The body (a test body that runs the agent and checks it, or a drill) runs once without faults:
 * the baseline, which must pass. Then, for each call it made to a world operation or a tool fake
 * inside a run, and for each error that operation declares (and a timeout), the body runs again
 * with exactly that call answering that error: the same fixtures, world and seed, so everything
 * before the call replays the same. Each variant is judged as the test would judge it (the body's
 * own expectations, the drill's criteria, a run that threw and nobody looked, a model request no
 * fixture answers); a variant that fails is a branch the agent does not handle. Nothing a variant
 * does fails the test by itself: the result says, and `toHandleAllFaults` asserts it.
 */

import type { DrillResult, RunDrillsOptions } from '../drills/run-drills';
import { UnderstudyError } from '../errors';
import type { InjectedFault } from '../run/session';
import type { Run, TraceSpan } from '../run/types';
import { getContext } from '../sandbox/runtime';
import type { CriterionResult } from '../world/criteria';
import { divergenceBefore, type Execution, executeBody, type SeenCall } from './body';
import { sweepTable } from './table';

const drills = (): typeof import('../drills/run-drills') => require('../drills/run-drills');

export interface SweepOptions {
  /**
   * Which faults each call gets: 'declared' (default) is every error its operation declares,
   * then a timeout; a list of codes keeps only those ('TIMEOUT' for the timeout).
   */
  faults?: 'declared' | string[];
  /** How long a timeout spends on the clock before it answers (default 0: at once). */
  timeoutMs?: number;
}

/** A call of the baseline that the sweep makes fail. */
export interface SweptCall {
  /** "packageId/operationId" (a tool fake: "fakeName/method"). */
  operation: string;
  packageId: string;
  operationId: string;
  /** The model's tool call it served, when the run links one. */
  tool?: string;
  /** 1-based among the baseline's calls of this operation. */
  ordinal: number;
  input: unknown;
  transport: string;
}

export interface SweepFault {
  kind: 'error' | 'timeout';
  /** The declared code, or 'TIMEOUT'. */
  code: string;
}

/** What the body gets: the fault of this execution (undefined on the baseline). */
export interface SweepContext {
  fault: (SweepFault & { call: SweptCall }) | undefined;
}

export interface SweepVariant {
  /** "issue_refund#1 TIMEOUT". */
  id: string;
  call: SweptCall;
  fault: SweepFault;
  verdict: 'handled' | 'unhandled';
  /** Why it is not handled (empty when it is). */
  reasons: string[];
  /** A drill's criteria that failed. */
  criteria: CriterionResult[];
  /** The runs the variant made. */
  runs: Run<any, any>[];
  /** The spans of the run the fault landed in (OTLP/JSON), built when read. */
  readonly trace: TraceSpan[];
}

export interface SweepResult<T = unknown> {
  /** The baseline: what the body returned, and its runs. */
  baseline: { value: T | undefined; runs: Run<any, any>[] };
  calls: SweptCall[];
  variants: SweepVariant[];
  handled: SweepVariant[];
  unhandled: SweepVariant[];
  /** The verdicts as a table, one line per variant. */
  table: string;
}

export type SweepTarget<T> = ((context: SweepContext) => T | Promise<T>) | RunDrillsOptions<any>;

const WHERE = 'understudy.sweep()';

function checkOptions(options: SweepOptions): Required<SweepOptions> {
  const bad = (m: string) => new UnderstudyError('BAD_ARGUMENT', `${WHERE}: ${m}`);
  if (typeof options !== 'object' || options === null) throw bad('options must be an object');
  const faults = options.faults ?? 'declared';
  if (
    faults !== 'declared' &&
    !(Array.isArray(faults) && faults.every((c) => typeof c === 'string' && c !== ''))
  )
    throw bad(`faults must be 'declared' or a list of error codes, received ${JSON.stringify(faults)}`);
  const timeoutMs = options.timeoutMs ?? 0;
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0))
    throw bad(`timeoutMs must be a number ≥ 0, received ${timeoutMs}`);
  for (const key of Object.keys(options))
    if (key !== 'faults' && key !== 'timeoutMs')
      throw bad(`unknown option ${JSON.stringify(key)} (expected faults, timeoutMs)`);
  return { faults, timeoutMs };
}

/** The model tool name each call served, from the baseline runs' links (display only). */
function toolNameOf(call: SeenCall, runs: readonly Run<any, any>[]): string | undefined {
  for (const run of runs) {
    const ops = run.operations.filter((o) => `${o.packageId}/${o.operationId}` === call.key);
    const op =
      ops.find((o) => JSON.stringify(o.input) === JSON.stringify(call.input)) ?? ops[call.ordinal - 1];
    const tool = op?.toolCallId && run.toolCalls.find((t) => t.id === op.toolCallId);
    if (tool) return tool.name;
  }
  return undefined;
}

function faultsFor(call: SeenCall, options: Required<SweepOptions>): SweepFault[] {
  const all: SweepFault[] = [
    ...call.declared.map((code) => ({ kind: 'error' as const, code })),
    { kind: 'timeout', code: 'TIMEOUT' },
  ];
  if (options.faults === 'declared') return all;
  const wanted = new Set(options.faults);
  return all.filter((f) => wanted.has(f.code));
}

export async function sweep<T>(target: SweepTarget<T>, options: SweepOptions = {}): Promise<SweepResult<T>> {
  const settings = checkOptions(options);
  let body: (context: SweepContext) => T | Promise<T>;
  if (typeof target === 'function') body = target;
  else if (
    typeof target === 'object' &&
    target !== null &&
    typeof (target as RunDrillsOptions<any>).agent === 'function'
  ) {
    const drill = target as RunDrillsOptions<any>;
    body = () => drills().runDrills(drill) as Promise<DrillResult> as Promise<T>;
  } else
    throw new UnderstudyError(
      'BAD_ARGUMENT',
      `${WHERE}: expected a test body (async ({ fault }) => { … }) or runDrills options ({ drill, agent }), received ${target === null ? 'null' : typeof target}`,
    );
  const runtime = getContext();

  const base = await executeBody(runtime, () => body({ fault: undefined }), {
    label: 'sweep: baseline',
    ownOutcomes: true,
    acceptUnmatched: false,
    where: WHERE,
  });
  if (base.reasons.length > 0)
    throw new UnderstudyError(
      'SWEEP_BASELINE_FAILED',
      `${WHERE}: the baseline (the body without any fault) did not pass, so no fault can be judged against it:\n${base.reasons.map((r) => `  - ${r}`).join('\n')}`,
    );

  const seen = base.calls.filter((c) => c.inRun);
  const calls = seen.map((c) => toSwept(c, base.runs));
  const variants: SweepVariant[] = [];
  for (const [i, call] of seen.entries()) {
    for (const fault of faultsFor(call, settings)) {
      const swept = calls[i];
      const id = `${swept.tool ?? call.key}#${call.ordinal} ${fault.code}`;
      const injected: InjectedFault =
        fault.kind === 'timeout'
          ? { kind: 'timeout', ms: settings.timeoutMs }
          : { kind: 'error', code: fault.code };
      const run = await executeBody(runtime, () => body({ fault: { ...fault, call: swept } }), {
        label: `sweep: ${id}`,
        fault: { key: call.key, ordinal: call.ordinal, fault: injected },
        ownOutcomes: true,
        acceptUnmatched: true,
        where: WHERE,
      });
      variants.push(variantOf(id, swept, fault, run, base, call));
    }
  }
  const handled = variants.filter((v) => v.verdict === 'handled');
  const unhandled = variants.filter((v) => v.verdict === 'unhandled');
  return {
    baseline: { value: base.value, runs: base.runs },
    calls,
    variants,
    handled,
    unhandled,
    table: sweepTable(calls, variants),
  };
}

function toSwept(c: SeenCall, runs: readonly Run<any, any>[]): SweptCall {
  const tool = toolNameOf(c, runs);
  return {
    operation: c.key,
    packageId: c.packageId,
    operationId: c.operationId,
    ...(tool !== undefined && { tool }),
    ordinal: c.ordinal,
    input: c.input,
    transport: c.transport,
  };
}

function variantOf(
  id: string,
  call: SweptCall,
  fault: SweepFault,
  run: Execution<unknown>,
  base: Execution<unknown>,
  seen: SeenCall,
): SweepVariant {
  const reasons = [...run.reasons];
  // A variant whose fault never landed would pass for the baseline's reasons: it proves nothing.
  if (!run.injected)
    reasons.unshift(`the fault never landed: the run did not make call #${seen.ordinal} of ${seen.key}`);
  const diverged = divergenceBefore(base.calls, run.calls, seen);
  if (diverged)
    reasons.unshift(
      `the run went another way before the fault (${diverged}): the replay is not deterministic`,
    );
  const faulted =
    run.runs.find((r) => r.operations.some((o) => o.faults?.some((f) => f.id === 'injected'))) ??
    run.runs.at(-1);
  let spans: TraceSpan[] | undefined;
  return {
    id,
    call,
    fault,
    verdict: reasons.length === 0 ? 'handled' : 'unhandled',
    reasons,
    criteria: run.criteria,
    runs: run.runs,
    get trace() {
      spans ??= faulted?.trace ?? [];
      return spans;
    },
  };
}
