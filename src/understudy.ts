import type { MockModel } from './model/mock-model';
import { type AgentHarness, type AgentHarnessOptions, createHarness } from './run/harness';
import { executeRun, type RunContext, type RunOptions } from './run/run';
import type { Run } from './run/types';
import { getRuntime } from './sandbox/runtime';
import type { Served } from './sandbox/serve-mode';
import type { FileWorld } from './world/host';

export interface Understudy {
  /** This test file's mock model. */
  readonly model: MockModel;
  /** This test file's world: state, reset, operations (evidence), clock, bind, load. */
  readonly world: FileWorld;
  /** Runs any agent function and returns its `Run`. */
  run<Output, Input = undefined>(
    agent: (context: RunContext) => Output | Promise<Output>,
    options?: RunOptions<Input>,
  ): Promise<Run<Input, Output>>;
  /**
   * Serves this file's model (every protocol) and world (HTTP routes, MCP, tool calls) on a
   * loopback port for agents in other processes; closed when the file ends. Their calls belong
   * to the run active when they arrive (the URLs read inside a run name it).
   */
  serve(): Promise<Served>;
}

/** The handle tests use; it reaches the runtime lazily so importing it never has side effects. */
export const understudy: Understudy = {
  get model() {
    return getRuntime().model;
  },
  get world() {
    return getRuntime().world.handle;
  },
  run(agent, options) {
    return executeRun(getRuntime(), agent, options);
  },
  serve() {
    return getRuntime().serve();
  },
};

/**
 * A reusable agent under test: its fixtures, record / live mode, and `run(input)` returning a
 * `Run` like `understudy.run`.
 */
export function createAgentHarness<Input = string, Output = unknown>(
  options: AgentHarnessOptions<Input, Output>,
): AgentHarness<Input, Output> {
  return createHarness(getRuntime, options);
}
