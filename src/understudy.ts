import type { BrowserRouting } from './browser/route';
import type { MockModel } from './model/mock-model';
import { type AgentHarness, type AgentHarnessOptions, createHarness } from './run/harness';
import { executeRun, type RunContext, type RunOptions } from './run/run';
import type { Run } from './run/types';
import type { UnderstudyHttp } from './sandbox/http-handlers';
import { getContext, getRuntime } from './sandbox/runtime';
import type { Served } from './sandbox/serve-mode';
import type { SocketRecord } from './sandbox/sockets';
import type { Scenario } from './scenario/scenario';
import type { AcrossProvidersOptions, PortabilityMatrix, ProviderContext } from './sweep/across-providers';
import type { SweepOptions, SweepResult, SweepTarget } from './sweep/sweep';
import type { FileWorld } from './world/host/contract';

// Loaded on first use: most test files never build a scenario, sweep or provider matrix, or route a browser.
const browserRoutes = (): typeof import('./browser/route') => require('./browser/route');
const scenarios = (): typeof import('./scenario/scenario') => require('./scenario/scenario');
const sweeps = (): typeof import('./sweep/sweep') => require('./sweep/sweep');
const matrices = (): typeof import('./sweep/across-providers') => require('./sweep/across-providers');

export interface Understudy {
  /** This test file's mock model. */
  readonly model: MockModel;
  /** This test file's world: state, reset, operations (the operation log), clock, bind, load. */
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
  /** A scenario builder: fixtures, tool fakes, world, state, overrides, seed, then `executeAgent`. */
  scenario(): Scenario;
  /**
   * Runs the body (or drill) once, then again with each call it made failing with each error its
   * operation declares (and a timeout); says which faults the agent handles.
   */
  sweep<T>(target: SweepTarget<T>, options?: SweepOptions): Promise<SweepResult<T>>;
  /** Runs the body once per wire protocol (the body gets which to use) and compares the runs. */
  acrossProviders<T>(
    fn: (context: ProviderContext) => T | Promise<T>,
    options?: AcrossProvidersOptions,
  ): Promise<PortabilityMatrix<T>>;
  /**
   * Serves this file's model (every protocol) and world (HTTP routes, MCP, tool calls) on a
   * loopback port for agents in other processes; closed when the file ends. Their calls belong
   * to the run active when they arrive (the URLs read inside a run name it, read in a test the test).
   */
  serve(): Promise<Served>;
  /** The WebSockets the current test opened to served hosts (in process and over the served port), in order. */
  readonly sockets: readonly SocketRecord[];
}

export interface UnderstudyBrowser {
  /**
   * Routes a Playwright BrowserContext (a Page's context) with its WebSockets, workers and service
   * workers: provider and world hosts are served by this file's model and world (with CORS), the
   * test's own loopback servers and `network.allow` pass, anything else fails the test, and what
   * Playwright cannot route is refused in the browser. Calls belong to the run `route` is called in,
   * else to the only active run; after the test it was called in ends, they fail the file.
   */
  route(pageOrContext: unknown): Promise<BrowserRouting>;
}

/** The handle tests use; it reaches the runtime lazily so importing it never has side effects. */
export const understudy: Understudy = {
  get model() {
    return getContext().model;
  },
  get world() {
    return getContext().world.handle;
  },
  get http() {
    return getRuntime().http.api;
  },
  browser: {
    route: (pageOrContext) => {
      const runtime = getRuntime();
      const { requests } = runtime;
      return browserRoutes().routeBrowser(
        { requests, file: requests.context, sockets: runtime.sockets },
        pageOrContext,
      );
    },
  },
  run(agent, options) {
    return executeRun(getContext(), agent, options);
  },
  scenario() {
    return scenarios().scenario();
  },
  sweep(target, options) {
    return sweeps().sweep(target, options);
  },
  acrossProviders(fn, options) {
    return matrices().acrossProviders(fn, options);
  },
  serve() {
    return getRuntime().serve();
  },
  get sockets() {
    return getRuntime().sockets.log;
  },
};

/**
 * A reusable agent under test: its fixtures, record / live mode, and `run(input)` returning a
 * `Run` like `understudy.run`.
 */
export function createAgentHarness<Input = string, Output = unknown>(
  options: AgentHarnessOptions<Input, Output>,
): AgentHarness<Input, Output> {
  return createHarness(getContext, options);
}
