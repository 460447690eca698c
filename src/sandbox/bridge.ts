/**
 * The contract between a runner adapter and the per-file session it drives (docs/architecture.md,
 * "Runner adapters"). The adapter tells the session where the test file is (a test started, was
 * skipped or finished; the phase of its lifecycle; the fake clock is about to change; the file is
 * done), hands it the requests it intercepted, and lends it what only the runner's side has
 * (`RunnerServices`). The session answers those requests and gives back the failures, evidence
 * and counts of the file. It reads nothing of the runner's own state.
 *
 * For Jest, the adapter is the environment (the host realm: environment/) with the preset's setup
 * file (environment/jest/setup.ts), and the two realms meet on a `Symbol.for` global, the `Bridge`: only
 * plain data and functions cross it, everything a test catches or compares is built on the
 * session's side. For Vitest, the adapter is the plugin's session (environment/vitest/session.ts),
 * which runs in the test file's own realm and sets the same `Bridge` on that realm's global. This
 * module has type imports only, so loading it in either realm loads nothing.
 */
import type { ErrorCode } from '../errors';
import type { ResolvedOptions } from '../options';
import type { ConcurrentTest, Failure, RunnerServices } from '../run/context';
import type { SocketAcceptance, SocketOffer } from '../sockets/carrier';
import type { FileStats, Phase, TestEvidence } from '../trace/evidence';

export type { ConcurrentTest, Failure, RunnerServices };

export const BRIDGE_KEY = Symbol.for('jest-understudy.bridge');
/** Set by the setup file (environment/jest/setup.ts) once it registered the matchers, bridge or not. */
export const SETUP_KEY = Symbol.for('jest-understudy.setup');

/** The per-file session as a runner adapter drives it (src/sandbox/runtime.ts). */
export interface FileSession {
  // ── What the adapter tells it ─────────────────────────────────────────────────
  /** A test starts (its name, `describe > test`): what follows is its, until it finishes. */
  testStarted(name: string): void;
  /** The test that started will not run (skipped): no test runs now. */
  testSkipped(): void;
  /** The part of the lifecycle running now: a hook's type, 'test' for the test function, undefined between. */
  phaseChanged(phase: Phase | undefined): void;
  /** The test is over (its hooks too): its runs are checked, its bindings and handlers expire. */
  testFinished(): void;
  /** The runner is about to install, remove or reset its fake clock: the world clock reads what it was advanced by. */
  timersChanging(): void;
  /** The file's tests are done: write its cassette (record modes) and fixture usage; returns the file's failures. */
  fileFinished(failedTests: number): Promise<Failure[]>;

  // ── The requests the adapter intercepted ──────────────────────────────────────
  /** Serves `fetch(input, init)` when it targets a mocked host; undefined leaves it to the adapter. */
  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined;
  /** Serves a request intercepted below fetch (node:http, https, XMLHttpRequest…); undefined (or a promise of it) if nothing of the file answers it. */
  handleRequest(request: Request): Promise<Response | undefined> | undefined;
  /**
   * Whether requests to `origin` (`https://api.openai.com`) are this file's to serve: a provider's
   * or a world package's base URL is there. The network guards route such connections here.
   */
  serves(origin: string): boolean;
  /** Whether the test has msw handlers of its own (`understudy.http.use`, `setupServer`, the `handlers` option). */
  answersHttp(): boolean;
  /**
   * A WebSocket a client opened to a served host: the socket protocol that serves its URL, ready
   * to open once the carrier completed the upgrade; undefined when none does (the carrier refuses
   * it under the network policy).
   */
  acceptSocket(offer: SocketOffer): SocketAcceptance | undefined;
  /**
   * A failure of the current code when it runs in the context of a run that has ended: recorded
   * for that run's test (else the file), and true; false leaves it to the caller (the test running).
   */
  lateFailure(code: ErrorCode, message: string): boolean;

  // ── What it gives back ────────────────────────────────────────────────────────
  /** Why the current test (or file) must fail since the last drain: unmatched model requests… */
  drainFailures(): Failure[];
  /** The current test's runs, model calls and failed expectation, as plain scrubbed data. */
  testEvidence(): TestEvidence;
  /** This file's counts so far, for the reporter. */
  fileStats(): FileStats;
}

/** What the API that declares tests (`live()`, `describeGoldenTasks`) takes from the running runner. */
export interface RunnerGlobals {
  test: TestDeclaration & { skip: TestDeclaration };
  it: TestDeclaration;
  describe: (name: string, fn: () => void) => void;
  expect: unknown;
}

export type TestDeclaration = (name: string, fn: (...args: any[]) => unknown, timeout?: number) => void;

/** The test runner the file runs under, as its adapter tells the session. */
export interface RunnerInfo {
  name: 'jest' | 'vitest';
  /** Its test-declaring functions, as the test file sees them (`@jest/globals`, `vitest`). */
  globals(): RunnerGlobals;
}

/**
 * An adapter and the session, met on a `Symbol.for` global of the test realm (Jest's sandbox
 * global; under Vitest, the worker's own).
 */
export interface Bridge extends RunnerServices {
  options: ResolvedOptions;
  /** Set by the adapter: which runner this is, and its globals. */
  runner?: RunnerInfo;
  session: FileSession | undefined;
  /**
   * Creates the session in the test realm on first need (set by the preset's setup file), so a
   * test file that never talks to a model or tool pays nothing for loading it.
   */
  loadSession?: () => FileSession;
  /**
   * Called by a session the test realm created (on first need, maybe inside a test or a hook):
   * the adapter keeps it and tells it where the file is now (the test running, the phase).
   */
  attach?(session: FileSession): void;
  /** Test functions `live()` registered as skipped, with the reason the reporter prints. */
  liveSkips?: Map<unknown, string>;
}
