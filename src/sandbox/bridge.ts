/**
 * The contract between the environment (Jest's host realm) and the runtime the test
 * file loads (the sandbox realm). Only plain data and functions cross it: everything a
 * test catches or compares is built on the sandbox side.
 */
import type { ErrorCode } from '../errors';
import type { ResolvedOptions } from '../options';
import type { UpstreamRequest } from '../record/recording';
import type { FileStats, Phase, TestEvidence } from '../trace/evidence';

export const BRIDGE_KEY = Symbol.for('jest-understudy.bridge');
/** Set by the setup file (presets/setup.ts) once it registered the matchers, bridge or not. */
export const SETUP_KEY = Symbol.for('jest-understudy.setup');

/** Why a test (or the file) must fail: the environment throws it as an `UnderstudyError` with this code. */
export interface Failure {
  code: ErrorCode;
  message: string;
}

/** What the sandbox runtime offers the environment. */
export interface BridgedRuntime {
  /** Serves `fetch(input, init)` when it targets a mocked host; undefined leaves it to msw. */
  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined;
  /** Serves a request msw intercepted (node:http, https, XMLHttpRequest…); undefined (or a promise of it) if nothing of the file answers it. */
  handleRequest(request: Request): Promise<Response | undefined> | undefined;
  /**
   * Whether requests to `origin` (`https://api.openai.com`) are this file's to serve: a provider's
   * or a world package's base URL is there. The network guards route such connections here.
   */
  serves?(origin: string): boolean;
  /** Whether the test has msw handlers of its own (`understudy.http.use`, `setupServer`, the `handlers` option). */
  answersHttp?(): boolean;
  testStarted(name: string): void;
  testFinished(): void;
  /** Why the current test (or file) must fail since the last drain: unmatched model requests… */
  drainFailures(): Failure[];
  /** The file's tests are done: write its cassette (record modes) and fixture usage; returns failures. */
  fileFinished?(failedTests: number): Promise<Failure[]>;
  /** The current test's runs, model calls and failed expectation, as plain scrubbed data. */
  testEvidence(): TestEvidence;
  /** This file's counts so far, for the reporter. */
  fileStats(): FileStats;
  /** Jest is about to install, remove or reset its fake clock: read what it was advanced by. */
  timersChanging?(): void;
  /**
   * A failure of the current code when it runs in the context of a run that has ended: recorded
   * for that run's test (else the file), and true; false leaves it to the caller (the test running).
   */
  lateFailure?(code: ErrorCode, message: string): boolean;
}

/** What the API that declares tests (`live()`, `describeGoldenTasks`) takes from the running runner. */
export interface RunnerGlobals {
  test: TestDeclaration & { skip: TestDeclaration };
  it: TestDeclaration;
  describe: (name: string, fn: () => void) => void;
  expect: unknown;
}

export type TestDeclaration = (name: string, fn: (...args: any[]) => unknown, timeout?: number) => void;

/** The test runner the file runs under, as its adapter tells the runtime. */
export interface RunnerInfo {
  name: 'jest' | 'vitest';
  /** Its test-declaring functions, as the test file sees them (`@jest/globals`, `vitest`). */
  globals(): RunnerGlobals;
}

export interface Bridge {
  options: ResolvedOptions;
  /** Set by the adapter: which runner this is, and its globals. */
  runner?: RunnerInfo;
  runtime: BridgedRuntime | undefined;
  /**
   * Creates the runtime in the test realm on first need (set by the preset's setup file), so a
   * test file that never talks to a model or tool pays nothing for loading it.
   */
  loadRuntime?: () => BridgedRuntime;
  /** Requests nothing handled, recorded by the environment, drained at test end. */
  unhandled: Failure[];
  /** Whether a test is running now (hooks of beforeAll/afterAll run outside one). */
  currentTest: string | undefined;
  /**
   * Sends a request to the real provider past the interception (msw's `bypass`), for record
   * and live modes. Replay never calls it.
   */
  upstream?: (request: UpstreamRequest) => Promise<Response>;
  /**
   * For a request nothing of the file answered, made by a client outside this process (a browser
   * page the test drives): the network policy's refusal message, or undefined when the policy lets
   * it through (a loopback server of this process, `network.allow`). Records nothing.
   */
  refusal?: (method: string, url: string, transport: string) => string | undefined;
  /** Which part of the test lifecycle runs now (set by the environment from Jest's events). */
  phase?: Phase;
  /**
   * Loads one of the package's dependencies with Node's own loader, outside the test file's
   * module registry: for an ES module (eventsource-parser), which Jest's CommonJS runtime cannot
   * load, and which it would refuse to load at all once the file's tests are over.
   */
  hostRequire?: (id: 'eventsource-parser') => unknown;
  /** Test functions `live()` registered as skipped, with the reason the reporter prints. */
  liveSkips?: Map<unknown, string>;
  /**
   * The test.concurrent test the current code runs in (told by async context), set when the file
   * has any: jest-understudy refuses them (src/sandbox/concurrent.ts), and `fail` fails that test.
   */
  concurrentTest?: () => ConcurrentTest | undefined;
}

/** A test.concurrent test whose body is running. */
export interface ConcurrentTest {
  readonly name: string;
  /** Fails this test (when it ends), whatever its body caught. */
  fail(failure: Failure): void;
}
