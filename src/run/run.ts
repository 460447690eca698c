import { badArgument, UnderstudyError } from '../errors';
import type { ModelCall } from '../model/call';
import type { UnderstudyMode } from '../record/mode';
import type { RunOperationEntry } from '../world/host';
import { finalMessageOf, terminalStateOf, toolCallsOf } from './collect';
import { spansOfRun } from './evidence';
import type { RunHost } from './host';
import { linkOperations } from './link';
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
  /** @internal What produced the run ('run', 'harness', 'drill'), for traces. */
  kind?: string;
  /** @internal A recording or live harness: the run's model calls go to the provider. */
  mode?: UnderstudyMode;
}

/**
 * Runs an agent function inside a recording scope: every model call it makes (however
 * deep, however concurrent with other runs) is attributed to this run.
 */
export async function executeRun<Input, Output>(
  runtime: RunHost,
  agent: (context: RunContext) => Output | Promise<Output>,
  options: RunOptions<Input> = {},
): Promise<Run<Input, Output>> {
  if (options.expectError !== undefined && typeof options.expectError !== 'boolean')
    throw badArgument('understudy.run(fn, { expectError })', 'true or false', options.expectError);
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
  // World operations executed inside the run land in `operations` (see src/world/host.ts).
  const operations: RunOperationEntry[] = [];
  const recorder = { calls, pending, operations, http, ...(options.mode ? { mode: options.mode } : {}) };
  // The workspace files as the run finds them, to tell what it changed.
  const files = runtime.world?.fileSnapshot();
  // Active until its streamed replies are captured: calls that arrive without a run's context are its own.
  const work = runtime.runs.run(recorder, async () => agent(context));
  try {
    if (options.timeoutMs === undefined) output = await work;
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
      output = await Promise.race([work, timeout]);
    }
  } catch (e) {
    error = e;
    outcome = controller.signal.aborted ? 'timed_out' : 'threw';
  } finally {
    if (timer) clearTimeout(timer);
  }
  try {
    if (pending.length > 0) await Promise.allSettled(pending);
  } finally {
    runtime.runs.end(recorder);
  }
  const end = performance.now();
  const toolCalls = toolCallsOf(calls);
  const run: Run<Input, Output> = {
    input: options.input as Input,
    output,
    finalMessage: finalMessageOf(calls),
    toolCalls,
    toolsCalled: toolCalls.map((t) => t.name),
    // Each tool call is linked to the operations that served it (the rule is in ./link.ts).
    operations: linkOperations(toolCalls, operations),
    modelCalls: calls,
    terminalState: terminalStateOf(calls, outcome, declared),
    error,
    durationMs: end - start,
    trace: [],
    ...(files && { files: runtime.world!.fileChanges(files) }),
  };
  registration.complete(run);
  withTrace(run, start, options.kind, http);
  if (!options.expectError) runtime.outcomes.watch(run, options.kind, runtime.inTest);
  return run;
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
