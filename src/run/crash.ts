/**
 * Crash faults: a run that stops dead at a chosen point, as if its process died, so a test
 * can start the agent again on the same world and check that it does not repeat what it
 * had already done.
 *
 * The crash comes `afterOperation` (the first call of that world operation or tool fake that
 * succeeds: its effect is in the world, its answer never reaches the agent) or `atStep` (the
 * agent's n-th model request, which is never answered). From then on nothing the run has in
 * flight, or asks for later, settles: an awaited tool call or model request stays pending (an
 * HTTP one gets headers and a body that never ends, so no client timer waits on it), so
 * the agent's code after it never runs (a dead process writes no checkpoint), and the run
 * ends at once with a `CrashError` and the terminal state 'crashed'. Aborting the run's
 * signal would wake the agent up in its catch blocks instead, so the signal is left alone.
 * A synchronous `mockTool` cannot wait: it throws the `CrashError`. Tool calls are held at the
 * world's door (src/world/host.ts), whatever carries them; an HTTP connection stalls at its
 * carrier (src/sandbox/requests.ts), and an in-process MCP connection closes when the file's
 * tests are done.
 */
import { UnderstudyError } from '../errors';

/** Where a run crashes: after an operation's first success, or at a model request. */
export interface CrashPlan {
  /**
   * `"packageId/operationId"`, an operation id, or `{ packageId?, operationId }`; a tool fake's
   * methods are `"fakeName/method"`.
   */
  afterOperation?: string | { packageId?: string; operationId: string };
  /** The agent's n-th model request of the run (1-based) is never answered. */
  atStep?: number;
}

/** Where a crashed run stopped. */
export interface CrashInfo {
  /** In words: "after record-store/records.save (operation #2)", "at step 2 (model request 2)". */
  at: string;
  /** The operation after which it crashed (its `seq`). */
  operation?: number;
  /** The model request at which it crashed (1-based, within the run). */
  step?: number;
}

/** What a crashed run ended with: the agent never got an answer after this point. */
export class CrashError extends UnderstudyError<'AGENT_CRASHED'> {
  override readonly name = 'CrashError';
  readonly crash: CrashInfo;
  constructor(crash: CrashInfo) {
    super(
      'AGENT_CRASHED',
      `the agent crashed ${crash.at}, as the run's crash fault asked; nothing in flight was answered`,
    );
    this.crash = crash;
  }
}

/** Whether `error` is a CrashError (from any realm or copy of the package). */
export function isCrashError(error: unknown): error is CrashError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { code?: unknown }).code === 'AGENT_CRASHED' &&
    typeof (error as { crash?: unknown }).crash === 'object'
  );
}

interface OperationName {
  packageId?: string;
  operationId: string;
}

/** The plan checked: exactly one of afterOperation and atStep, each well formed. */
export function checkCrashPlan(plan: unknown, where: string): CrashPlan {
  const bad = (expected: string) =>
    new UnderstudyError('BAD_ARGUMENT', `${where}: expected ${expected}, received ${JSON.stringify(plan)}`);
  if (typeof plan !== 'object' || plan === null || Array.isArray(plan))
    throw bad('{ afterOperation } or { atStep }');
  const { afterOperation, atStep, ...rest } = plan as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    throw bad(`only afterOperation or atStep (not ${Object.keys(rest).join(', ')})`);
  if ((afterOperation === undefined) === (atStep === undefined))
    throw bad('exactly one of afterOperation and atStep');
  if (atStep !== undefined && !(Number.isInteger(atStep) && (atStep as number) >= 1))
    throw bad('atStep: an integer ≥ 1 (the n-th model request of the run)');
  if (afterOperation !== undefined) operationOf(afterOperation, () => bad);
  return plan as CrashPlan;
}

function operationOf(
  value: unknown,
  bad: () => (expected: string) => UnderstudyError = () => (e) => new UnderstudyError('BAD_ARGUMENT', e),
): OperationName {
  if (typeof value === 'string' && value !== '') {
    const slash = value.indexOf('/');
    return slash === -1
      ? { operationId: value }
      : { packageId: value.slice(0, slash), operationId: value.slice(slash + 1) };
  }
  const o = value as Partial<OperationName> | null;
  if (
    typeof o === 'object' &&
    o !== null &&
    typeof o.operationId === 'string' &&
    o.operationId !== '' &&
    (o.packageId === undefined || typeof o.packageId === 'string')
  )
    return { operationId: o.operationId, ...(o.packageId !== undefined && { packageId: o.packageId }) };
  throw bad()('afterOperation: "packageId/operationId", an operation id, or { packageId?, operationId }');
}

/** The plan in words, for messages: "after record-store/records.save", "at step 2". */
export function describeCrashPlan(plan: CrashPlan): string {
  if (plan.atStep !== undefined) return `at step ${plan.atStep} (model request ${plan.atStep})`;
  const op = operationOf(plan.afterOperation);
  return `after ${op.packageId ? `${op.packageId}/` : ''}${op.operationId}`;
}

const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** One run's crash: whether it fired, and the gate every answer to the run passes. */
export class CrashState {
  private steps = 0;
  private failure: CrashError | undefined;
  private fire!: (error: CrashError) => void;
  /** Rejects with the CrashError when the crash fires. */
  readonly crashed: Promise<never>;
  private readonly operation: OperationName | undefined;

  constructor(readonly plan: CrashPlan) {
    this.operation = plan.afterOperation === undefined ? undefined : operationOf(plan.afterOperation);
    this.crashed = new Promise<never>((_, reject) => {
      this.fire = reject;
    });
    this.crashed.catch(() => {});
  }

  get fired(): boolean {
    return this.failure !== undefined;
  }

  /** The error the run ended with, once the crash fired. */
  get error(): CrashError | undefined {
    return this.failure;
  }

  private crash(info: CrashInfo): void {
    this.failure = new CrashError(info);
    this.fire(this.failure);
  }

  /** An operation of the run was served: the crash fires after the first success of its operation. */
  afterOperation(record: {
    seq: number;
    packageId: string;
    operationId: string;
    outcome: { kind: string };
  }): void {
    const want = this.operation;
    if (this.fired || !want || record.outcome.kind !== 'ok') return;
    if (want.operationId !== record.operationId) return;
    if (want.packageId !== undefined && want.packageId !== record.packageId) return;
    this.crash({
      at: `after ${record.packageId}/${record.operationId} (operation #${record.seq})`,
      operation: record.seq,
    });
  }

  /** A model request of the run arrived; true when it is the one the crash stops at. */
  modelRequest(): boolean {
    if (this.fired) return true;
    this.steps++;
    if (this.plan.atStep !== this.steps) return false;
    this.crash({ at: `at step ${this.steps} (model request ${this.steps})`, step: this.steps });
    return true;
  }

  /**
   * The answer `work` gives, unless the run crashed by then: then it never settles, or settles
   * with `stalled()` (an answer the caller waits on forever, for callers that keep a timer).
   */
  hold<T>(work: Promise<T>, stalled?: () => T): Promise<T> {
    const cut = () => (stalled ? Promise.resolve(stalled()) : never<T>());
    if (this.fired) {
      // What it would have answered is dropped, a failure too: it must not surface as unhandled.
      work.catch(() => {});
      return cut();
    }
    return work.then(
      (value) => (this.fired ? cut() : value),
      (error) => (this.fired ? cut() : Promise.reject(error)),
    );
  }

  /**
   * For a carrier that must show its client something (an HTTP connection, whose client keeps a
   * timer): what `work` answers, else `stalled()` as soon as the run crashes, without waiting for
   * `work` (a tool call of a crashed run never settles).
   */
  stall<T>(work: Promise<T>, stalled: () => T): Promise<T> {
    let cut: { answer: T } | undefined;
    const once = () => {
      cut ??= { answer: stalled() };
      return cut.answer;
    };
    const held = this.hold(work, once);
    return this.fired ? held : Promise.race([held, this.crashed.catch(once)]);
  }
}
