import { UnderstudyError } from '../errors';
import type { Runtime } from '../runtime/runtime';
import { finalMessageOf, terminalStateOf, toolCallsOf, traceOf } from './collect';
import type { ModelCall, Run, TerminalState } from './types';

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
}

/**
 * Runs an agent function inside a recording scope: every model call it makes (however
 * deep, however concurrent with other runs) is attributed to this run.
 */
export async function executeRun<Input, Output>(
  runtime: Runtime,
  agent: (context: RunContext) => Output | Promise<Output>,
  options: RunOptions<Input> = {},
): Promise<Run<Input, Output>> {
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
  const work = runtime.runs.run({ calls }, async () => agent(context));
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
  const end = performance.now();
  const toolCalls = toolCallsOf(calls);
  return {
    input: options.input as Input,
    output,
    finalMessage: finalMessageOf(calls),
    toolCalls,
    toolsCalled: toolCalls.map((t) => t.name),
    operations: [],
    modelCalls: calls,
    terminalState: terminalStateOf(calls, outcome, declared),
    error,
    durationMs: end - start,
    trace: traceOf(calls, toolCalls, start, end),
  };
}
