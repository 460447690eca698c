import { badArgument, UnderstudyError } from '../errors';
import type { ModelCall } from '../model/call';
import type { UnderstudyMode } from '../record/mode';
import type { RunOperationEntry } from '../world/host';
import { finalMessageOf, ranByAgent, terminalStateOf, toolCallsOf } from './collect';
import type { FileContext } from './context';
import { type CrashPlan, CrashState, checkCrashPlan, describeCrashPlan } from './crash';
import { spansOfRun } from './evidence';
import { linkOperations } from './link';
import { peek } from './outcomes';
import type { HttpExchange, Run, TerminalState } from './types';

/** What an agent function receives besides its input. */
export interface RunContext {
  /** Aborted when the run's `timeoutMs` passes; hand it to your SDK calls. */
  signal: AbortSignal;
  /** Name the run's terminal state yourself (e.g. 'needs_approval', 'cancelled'). */
  setTerminalState(state: TerminalState): void;
}

export interface RunOptions<Input> {
  input?: Input;
  /** Wall-clock deadline; the run ends as 'timed_out' and the signal aborts. */
  timeoutMs?: number;
  /**
   * The agent may throw or time out: do not fail the test when it does and the test never
   * reads `run.error` or `run.terminalState` (by default such a run fails its test).
   */
  expectError?: boolean;
  /**
   * Stops the run dead at this point, as if its process died (see src/run/crash.ts): after
   * the first success of an operation, or at the n-th model request. The run ends 'crashed'.
   */
  crash?: CrashPlan;
  /** This run starts the agent again after `resumeFrom` crashed (same world, both attempts in the evidence). */
  resumeFrom?: Run<any, any>;
  /** @internal What produced the run ('run', 'harness', 'drill'), for traces. */
  kind?: string;
  /** @internal A recording or live harness: the run's model calls go to the provider. */
  mode?: UnderstudyMode;
  /** @internal Told when the crash never came (default: the test fails). */
  crashMissed?: (message: string) => void;
}

/**
 * Runs an agent function inside a recording scope: every model call it makes (however
 * deep, however concurrent with other runs) is attributed to this run.
 */
export async function executeRun<Input, Output>(
  runtime: FileContext,
  agent: (context: RunContext) => Output | Promise<Output>,
  options: RunOptions<Input> = {},
): Promise<Run<Input, Output>> {
  if (options.expectError !== undefined && typeof options.expectError !== 'boolean')
    throw badArgument('understudy.run(fn, { expectError })', 'true or false', options.expectError);
  const crash =
    options.crash === undefined
      ? undefined
      : new CrashState(checkCrashPlan(options.crash, 'understudy.run(fn, { crash })'));
  const attempt = options.resumeFrom === undefined ? 1 : attemptOf(options.resumeFrom) + 1;
  const calls: ModelCall[] = [];
  const controller = new AbortController();
  let declared: TerminalState | undefined;
  const context: RunContext = {
    signal: controller.signal,
    setTerminalState: (s) => {
      declared = s;
    },
  };
  const start = performance.now();
  let output: Output | undefined;
  let error: unknown;
  let outcome: 'returned' | 'threw' | 'timed_out' = 'returned';
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Registered as it starts, so a test that fails mid-run still shows what the run did.
  // Requests the test's own msw handlers answer inside the run are steps of its evidence.
  const http: HttpExchange[] = [];
  const registration = runtime.evidence.register(calls, start, options.input, options.kind, http);
  // Streamed provider replies (record and live modes) are captured while the agent reads them.
  const pending: Promise<unknown>[] = [];
  // Streamed replies still going out when the agent is done are cut where they stand.
  const inflight: Array<{ settle(): void }> = [];
  // World operations executed inside the run land in `operations` (the world's door: src/world/host.ts).
  const operations: RunOperationEntry[] = [];
  const recorder = {
    calls,
    pending,
    inflight,
    operations,
    http,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(crash && { crash }),
  };
  // The workspace files as the run finds them, to tell what it changed.
  const files = runtime.world.fileSnapshot();
  // Active until its streamed replies are captured: calls that arrive without a run's context are its own.
  const work = runtime.runs.run(recorder, async () => agent(context));
  // A crash ends the run at once; the agent's own promise is left waiting on answers that never come.
  const stopped = crash ? Promise.race([work, crash.crashed]) : work;
  try {
    if (options.timeoutMs === undefined) output = await stopped;
    else {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const e = new UnderstudyError(
            'RUN_TIMEOUT',
            `the agent did not finish within ${options.timeoutMs} ms`,
          );
          controller.abort(e);
          reject(e);
        }, options.timeoutMs);
      });
      output = await Promise.race([stopped, timeout]);
    }
  } catch (e) {
    error = e;
    outcome = controller.signal.aborted ? 'timed_out' : 'threw';
  } finally {
    if (timer) clearTimeout(timer);
  }
  try {
    if (pending.length > 0) await Promise.allSettled(pending);
    for (const reply of inflight) reply.settle();
  } finally {
    // A crashed run's agent is cut off on purpose: what it still sends is held (never answered), not refused.
    runtime.runs.end(recorder, crash?.fired === true);
  }
  const end = performance.now();
  if (crash && !crash.fired)
    // A crash test whose crash never came would resume a run that finished: it proves nothing.
    (options.crashMissed ?? ((message) => runtime.fail('CRASH_NOT_REACHED', `jest-understudy: ${message}`)))(
      crashMissedMessage(crash.plan, terminalStateOf(calls, outcome, declared)),
    );
  const toolCalls = toolCallsOf(calls);
  // Each tool call is linked to the operations that served it (the rule is in ./link.ts).
  const linked = linkOperations(toolCalls, operations);
  const run: Run<Input, Output> = {
    input: options.input as Input,
    output,
    finalMessage: finalMessageOf(calls),
    toolCalls,
    toolsCalled: toolCalls.filter(ranByAgent).map((t) => t.name),
    operations: linked,
    modelCalls: calls,
    terminalState: crash?.fired ? 'crashed' : terminalStateOf(calls, outcome, declared),
    error,
    durationMs: end - start,
    trace: [],
    ...(files && { files: runtime.world.fileChanges(files) }),
    ...(crash?.error && { crash: crash.error.crash }),
  };
  if (options.resumeFrom) hide(run, 'resumedFrom', options.resumeFrom);
  hide(run, ATTEMPT, attempt);
  const session = runtime.session;
  const label = session?.runEnded?.(run);
  const kind = label ?? (attempt > 1 ? `${options.kind ?? 'run'} (attempt ${attempt})` : options.kind);
  registration.complete(run, kind === undefined ? undefined : { kind });
  withTrace(run, start, kind, http);
  if (!options.expectError && !crash?.fired)
    (session?.outcomes ?? runtime.outcomes).watch(run, options.kind, runtime.inTest);
  return run;
}

function crashMissedMessage(plan: CrashPlan, state: TerminalState): string {
  const what =
    plan.atStep !== undefined
      ? `the agent made fewer than ${plan.atStep} model requests`
      : `no call of ${describeCrashPlan(plan).slice('after '.length)} succeeded`;
  return `the run was given the crash fault "${describeCrashPlan(plan)}", but it ended (terminal state '${state}') without reaching it: ${what}.`;
}

const ATTEMPT = Symbol.for('jest-understudy.run.attempt');

/** A field that does not take part in comparisons (`toEqual` of two runs compares what they did). */
function hide(run: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(run, key, { value, enumerable: false, configurable: true, writable: true });
}

/** Which attempt a run was (1 unless it resumed a crashed run). */
function attemptOf(run: Run<any, any>): number {
  if (typeof run !== 'object' || run === null || !Array.isArray((run as Partial<Run>).modelCalls))
    throw badArgument('understudy.run(fn, { resumeFrom })', 'the Run of an attempt that crashed', run);
  if (peek(run, 'terminalState') !== 'crashed')
    throw new UnderstudyError(
      'BAD_ARGUMENT',
      `understudy.run(fn, { resumeFrom }): resumeFrom must be a run that crashed (a run given a crash fault), ` +
        `but its terminal state is '${String(peek(run, 'terminalState'))}'`,
    );
  return ((run as unknown as Record<symbol, unknown>)[ATTEMPT] as number | undefined) ?? 1;
}

/** `trace` is built when first read: most runs are never exported. */
function withTrace<R extends Run<any, any>>(
  run: R,
  start: number,
  kind: string | undefined,
  http: readonly HttpExchange[],
): R {
  let spans: Run['trace'] | undefined;
  return Object.defineProperty(run, 'trace', {
    enumerable: true,
    configurable: true,
    get: () => {
      spans ??= spansOfRun(run, start, kind, http);
      return spans;
    },
    set: (value: Run['trace']) => {
      spans = value;
    },
  });
}
