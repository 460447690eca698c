import { type BrowserRouting, routeBrowser } from './browser/route';
import type { MockModel } from './model/mock-model';
import { type AgentHarness, type AgentHarnessOptions, createHarness } from './run/harness';
import { executeRun, type RunContext, type RunOptions } from './run/run';
import type { Run } from './run/types';
import type { UnderstudyHttp } from './sandbox/http-handlers';
import { getRuntime } from './sandbox/runtime';
import type { FileWorld } from './world/host';

export interface Understudy {
  /** This test file's mock model. */
  readonly model: MockModel;
  /** This test file's world: state, reset, operations (evidence), clock, bind, load. */
  readonly world: FileWorld;
  /** Your own msw request handlers: `use(...handlers)` (in a test until it ends, outside one for the file). */
  readonly http: UnderstudyHttp;
  /** Playwright pages and browser contexts whose provider and world traffic this file serves. */
  readonly browser: UnderstudyBrowser;
  /** Runs any agent function and returns its `Run`. */
  run<Output, Input = undefined>(
    agent: (context: RunContext) => Output | Promise<Output>,
    options?: RunOptions<Input>,
  ): Promise<Run<Input, Output>>;
}

export interface UnderstudyBrowser {
  /**
   * Routes a Playwright Page's or BrowserContext's requests: provider and world hosts are served by
   * this file's model and world (with CORS), the test's own loopback servers and `network.allow`
   * pass, anything else fails the test. Calls belong to the run `route` is called in, else to the
   * only active run.
   */
  route(pageOrContext: unknown): Promise<BrowserRouting>;
}

/** The handle tests use; it reaches the runtime lazily so importing it never has side effects. */
export const understudy: Understudy = {
  get model() {
    return getRuntime().model;
  },
  get world() {
    return getRuntime().world.handle;
  },
  get http() {
    return getRuntime().http.api;
  },
  browser: {
    route: (pageOrContext) => routeBrowser(getRuntime(), pageOrContext),
  },
  run(agent, options) {
    return executeRun(getRuntime(), agent, options);
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
