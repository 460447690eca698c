import type { BrowserDeps } from '../browser/route';
import { abortReason, type Clock, createClock } from '../clock';
import type { ConversationStore } from '../conversation';
import { type ErrorCode, UnderstudyError } from '../errors';
import { bodyTextOf, eachHeaderOf, headerOf, methodOf, signalOf, urlOf } from '../fetch-input';
import { noteCredentials } from '../files/secrets';
import { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import { ProviderRouter } from '../providers/registry';
import { createConversationStore } from '../providers/store';
import { Recording } from '../record/recording';
import type { CrashState } from '../run/crash';
import type { HarnessDeps, RunRecorder } from '../run/deps';
import { EvidenceLog } from '../run/evidence';
import { OutcomeWatch } from '../run/outcomes';
import { Owner, RunScope, type ScopeDeps } from '../run/scope';
import type { RunSession } from '../run/session';
import type { FileStats, TestEvidence } from '../trace/evidence';
import { WorldHost } from '../world/host';
import { BRIDGE_KEY, type Bridge, type BridgedRuntime, type Failure } from './bridge';
import { refuseInConcurrentTest } from './concurrent';
import { loadHandlersModule, UserHandlers } from './http-handlers';
import { missingEnvironmentMessage, sandboxFacts } from './missing-environment';
import type { Served } from './serve-mode';
import { type ModelRequest, ModelServer, type ModelServerDeps } from './serve-model';
import type { ServedRequest } from './served';
import { asResponse, connectionDropped, undelivered, type WireAnswer } from './wire';

// Required on the first `understudy.serve()`: most files never start a port.
const serveModeModule = (): typeof import('./serve-mode') => require('./serve-mode');

/**
 * A request that came over the served port, as the model server reads it at a provider's `url`.
 * Its signal is the port's, made only if something reads it; a class, so that the getter is not
 * made per request (see `NodeServedRequest` in ./serve-port.ts).
 */
class ServedModelRequest implements ModelRequest {
  constructor(
    readonly url: string,
    private readonly served: ServedRequest,
  ) {}

  get method(): string {
    return this.served.method;
  }

  get signal(): AbortSignal {
    return this.served.signal;
  }

  readBody(): Promise<string> {
    return this.served.readBody();
  }

  header(name: string): string | null {
    return this.served.header(name);
  }

  headers(): Headers {
    return this.served.headers();
  }

  eachHeader(visit: (value: string, name: string) => void): void {
    this.served.eachHeader(visit);
  }
}

/** The per-file runtime in the test realm: the mock model, routing, and the test lifecycle. */
export class SandboxRuntime implements BridgedRuntime, HarnessDeps, ModelServerDeps, BrowserDeps, ScopeDeps {
  readonly model: MockModel;
  readonly router: ProviderRouter;
  /** Which run a call belongs to (async context, else the only active run). */
  readonly runs: RunScope<RunRecorder> = new RunScope<RunRecorder>(this);
  /** The file's own calls (hooks outside tests, its top level). */
  private readonly fileOwner = new Owner(undefined);
  /** The test running now, else the file: whom its calls and failures belong to. */
  private currentOwner = this.fileOwner;
  /** Failures of no test: calls of a test that arrived after it ended fail the file, never the test running then. */
  private fileFailures: Failure[] = [];
  /** Runs that ended errored or timed out, until the test (or file) that made them looked or ended. */
  readonly outcomes = new OutcomeWatch();
  readonly clock: Clock;
  /** Threads stateful protocols chain by response id, for the whole file. */
  readonly threads: ConversationStore = createConversationStore();
  /** What the current test did (runs, model calls, failed expectations), for traces and the reporter. */
  readonly evidence: EvidenceLog;
  /** Record, record-missing and live modes; cassette staleness and fixture usage. */
  readonly recording: Recording;
  /** This file's world (`understudy.world`), its HTTP transport and drills. */
  readonly world: WorldHost;
  /** The test's own msw handlers (`understudy.http`, `setupServer`, the `handlers` option). */
  readonly http: UserHandlers;
  /** A sweep or provider matrix running the test body again (src/run/session.ts). */
  session: RunSession | undefined;
  /** Every request to a provider host. */
  private readonly server: ModelServer;
  private failures: Failure[] = [];
  private served: Promise<Served> | undefined;

  constructor(
    readonly options: ResolvedOptions,
    private readonly bridge?: Bridge,
  ) {
    this.model = new MockModel({
      strictTurnIndex: options.strictTurnIndex,
      // Fixtures registered from a concurrent test would answer the other tests' requests.
      guard: (what) => this.refuseConcurrent(what),
      // The trace of a test then shows what came after the reset, and says what it let go.
      onReset: () => this.evidence.release(),
    });
    this.router = new ProviderRouter(options.providers);
    this.clock = createClock(options.timeScale);
    this.evidence = new EvidenceLog(
      () => bridge?.phase,
      () => (this as { world?: { operations?: unknown[] } }).world?.operations,
    );
    if (options.fixtures.length > 0) {
      // Required here: the file loader pulls in js-yaml and ajv, which only configs with fixture files need.
      const { loadFixtureFiles } = require('../fixtures/load') as typeof import('../fixtures/load');
      this.model.register(loadFixtureFiles(options.fixtures), 'config');
    }
    this.recording = new Recording(this, bridge);
    this.server = new ModelServer(this);
    // Loads the configured world (option or @understudy-world pragma); a bad file fails the test file here.
    this.world = new WorldHost(
      {
        claim: (request) => {
          const claim = this.claim(
            () =>
              `a world operation (${request.packageId}/${request.operationId}, transport: ${request.transport})`,
          );
          if (!claim.refused) return claim;
          // Not an operation's failure: a failure of the test (see docs/errors.md, runs), answered as the engine's are.
          const { code, status, message } = claim.refused;
          return { refused: { code, message, retryable: false, status } };
        },
        sleep: (ms, signal) => this.clock.sleep(ms, signal),
        fail: (code, message) => this.fail(code, message),
        currentTest: () => bridge?.currentTest,
        inject: (call) => this.session?.toolCall?.(call),
        hold: (work) => this.crashOfRun()?.hold(work) ?? work,
        stopIfCrashed: () => {
          const crash = this.crashOfRun();
          if (crash?.fired) throw crash.error;
        },
      },
      options.world,
    );
    this.http = new UserHandlers(this);
    if (options.handlers !== undefined) {
      const { handlers, where } = loadHandlersModule(options.handlers);
      this.http.configure(handlers, where);
    }
  }

  /** Restarts the mock model's sequenceIndex counts and chaos draws, so each drill trial replays the same answers. */
  restartModelSequences(): void {
    this.model.restartSequences();
  }

  /** Whether a test is running (not a beforeAll/afterAll hook or the file's top level). */
  get inTest(): boolean {
    return this.bridge?.currentTest !== undefined;
  }

  /** `understudy.serve()`: this file's one served port, started on first call. */
  serve(): Promise<Served> {
    this.served ??= serveModeModule()
      .startServing(this, () => {
        this.served = undefined;
      })
      .catch((error: unknown) => {
        this.served = undefined;
        throw error;
      });
    return this.served;
  }

  async fileFinished(failedTests: number): Promise<Failure[]> {
    this.filesDone = true;
    for (const controller of this.stalled) controller.error(new Error(CRASHED_RUN_ENDED));
    this.stalled.clear();
    await (await this.served?.catch(() => undefined))?.close();
    const unseen = this.outcomes.take(false).map((message) => ({
      code: 'RUN_UNOBSERVED' as const,
      message: `A run made outside the tests (in a beforeAll/afterAll hook or at file level): ${message}`,
    }));
    this.world.fileFinished();
    const late = this.fileFailures.splice(0);
    return [...unseen, ...late, ...(await this.recording.fileFinished(failedTests))];
  }

  /** The fake clock is about to change: the world clock reads what it was advanced by. */
  timersChanging(): void {
    this.world.timersChanging();
  }

  /** The bodies of the answers crashed runs wait on; they error when the file's tests are done. */
  private readonly stalled = new Set<ReadableStreamDefaultController>();
  private filesDone = false;

  private stalledResponse(): Response {
    const body = new ReadableStream({
      start: (controller) => {
        if (this.filesDone) controller.error(new Error(CRASHED_RUN_ENDED));
        else this.stalled.add(controller);
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  }

  /** The crash fault of the run the current code belongs to, if it has one. */
  private crashOfRun(): CrashState | undefined {
    return this.runs.getStore()?.crash;
  }

  /**
   * A run with a crash fault gets no answer once it crashed, and crashes at its n-th model
   * request (which is never answered): see src/run/crash.ts. An HTTP answer that never comes
   * would leave the client's request-timeout timer running, so it gets headers and a body that
   * does not end until the file's tests are done (then it errors, and the client's timers stop).
   */
  private crashing<R>(
    url: string | undefined,
    serve: () => Promise<R> | undefined,
    stalledAs: (response: Response) => R,
  ): Promise<R> | undefined {
    const crash = this.crashOfRun();
    if (!crash) return serve();
    const stalled = () => stalledAs(this.stalledResponse());
    if (url !== undefined && this.router.route(url) && crash.modelRequest())
      return Promise.resolve(stalled());
    const served = serve();
    return served && crash.hold(served, stalled);
  }

  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    return this.crashing(
      urlOf(input),
      () => this.serveFetch(input, init),
      (response) => response,
    );
  }

  private serveFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    const url = urlOf(input);
    const i = init as RequestInit | undefined;
    const target = url === undefined ? undefined : this.router.route(url, methodOf(input, i));
    // Not a provider: maybe a world HTTP route (undefined leaves it to msw).
    if (!target && url !== undefined) {
      noteCredentials({ forEach: (visit) => eachHeaderOf(input, i, visit) }, url);
      return this.world.handleFetch(
        url,
        input,
        i,
        methodOf(input, i),
        () => bodyTextOf(input, i),
        signalOf(input, i),
      );
    }
    if (!target || url === undefined) return undefined;
    const signal = signalOf(input, i);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return this.server
      .serve(target, {
        url,
        method: methodOf(input, i),
        readBody: () => bodyTextOf(input, i),
        header: (name) => headerOf(input, i, name),
        headers: () => new Headers((i?.headers ?? (input as Request | undefined)?.headers) as HeadersInit),
        eachHeader: (visit) => eachHeaderOf(input, i, visit),
        signal,
      })
      .then((answer) => {
        // Given up on while it was served: fetch rejects, as it does before a response arrives.
        if (signal?.aborted) throw undelivered(answer, abortReason(signal));
        if (answer.kind === 'drop') throw connectionDropped();
        return asResponse(answer);
      });
  }

  /** A request for `url` (a provider or world host URL; the request's own unless it came over the served port). */
  handleRequest(request: Request, url = request.url): Promise<Response | undefined> | undefined {
    return this.crashing(
      url,
      () => this.serveRequest(request, url),
      (response) => response,
    );
  }

  private serveRequest(request: Request, url: string): Promise<Response | undefined> | undefined {
    const target = this.router.route(url, request.method);
    // A world HTTP route, else the test's own msw handlers, else undefined (the network policy decides).
    if (!target) {
      noteCredentials(request.headers, url);
      return this.world.handleRequest(request, url) ?? this.http.handle(request);
    }
    if (request.signal.aborted) return Promise.reject(abortReason(request.signal));
    return this.server
      .serve(target, {
        url,
        method: request.method,
        readBody: () => request.text(),
        header: (name) => request.headers.get(name),
        headers: () => request.headers,
        eachHeader: (visit) => request.headers.forEach(visit),
        signal: request.signal,
      })
      .then((answer) => {
        if (request.signal.aborted) throw undelivered(answer, abortReason(request.signal));
        return asResponse(answer);
      });
  }

  /**
   * A request that came over the served port for `url` (a provider's URL): a model call is
   * served from the request as it arrived, and answered in wire form.
   */
  serveModel(request: ServedRequest, url: string): Promise<WireAnswer | undefined> | undefined {
    const whole = (response: Response | undefined): WireAnswer | undefined =>
      response && { kind: 'response', response };
    return this.crashing(
      url,
      () => {
        const target = this.router.route(url, request.method);
        // Not a provider this file serves: the same way as any request for that URL.
        if (!target) return request.toRequest().then((r) => this.serveRequest(r, url)?.then(whole));
        return this.server.serve(target, new ServedModelRequest(url, request));
      },
      whole,
    );
  }

  answersHttp(): boolean {
    return !this.http.empty;
  }

  serves(origin: string): boolean {
    return this.router.serves(origin) || this.world.serves(origin);
  }

  /** The network policy's message for a request from outside this process nothing answered; undefined: it passes. */
  refusal(method: string, url: string, transport: string): string | undefined {
    if (!this.bridge?.refusal)
      return `${method} ${url} (transport: ${transport}) was not served: jest-understudy's environment is not active.`;
    return this.bridge.refusal(method, url, transport);
  }

  /** The test running now, else the file. */
  owner(): Owner {
    return this.currentOwner;
  }

  /** Fails `owner`'s test while it runs; a test that has ended (or the file's own work) fails the file. */
  failOwner(owner: Owner, code: ErrorCode, message: string): void {
    if (owner === this.currentOwner && owner.test !== undefined) {
      this.fail(code, message);
      return;
    }
    const failure = {
      code,
      message:
        owner.test === undefined
          ? message
          : `${message} It fails the test file: the test "${owner.test}" had ended when it arrived.`,
    };
    if (this.fileFailures.some((f) => f.code === failure.code && f.message === failure.message)) return;
    this.fileFailures.push(failure);
  }

  /**
   * The run a model call or world operation belongs to, or why it is refused: it was made in a
   * concurrent test, or after its run (or its run's test) ended. The failure is recorded here.
   */
  claim(what: () => string): RuntimeClaim {
    const concurrent = refuseInConcurrentTest(this.bridge, () => `made ${what()}`);
    if (concurrent) return { refused: { code: 'CONCURRENT_TEST', status: 409, message: concurrent } };
    const claim = this.runs.claim(what);
    return claim.refused !== undefined
      ? { refused: { code: 'RUN_ENDED', status: 410, message: claim.refused } }
      : claim;
  }

  /** A refused request (the network policy's) made in the context of a run that has ended: its test's, else the file's. */
  lateFailure(code: ErrorCode, message: string): boolean {
    const owner = this.runs.lateOwner();
    if (!owner) return false;
    this.failOwner(owner, code, message);
    return true;
  }

  /** Why a call that belongs to no run (an embedding request) is refused: as `claim`, without attributing it. */
  admit(what: () => string): Refusal | undefined {
    const concurrent = refuseInConcurrentTest(this.bridge, () => `made ${what()}`);
    if (concurrent) return { code: 'CONCURRENT_TEST', status: 409, message: concurrent };
    const late = this.runs.refuseIfLate(what);
    return late === undefined ? undefined : { code: 'RUN_ENDED', status: 410, message: late };
  }

  /** For a test.concurrent test: fails it and throws (see CONCURRENT_TEST). `what` names the use. */
  refuseConcurrent(what: string): void {
    const message = refuseInConcurrentTest(this.bridge, () => what);
    if (message) throw new UnderstudyError('CONCURRENT_TEST', message);
  }

  testStarted(name: string): void {
    this.currentOwner = new Owner(name);
    this.runs.forgetActive();
    this.recording.testStarted(name);
    this.model.beginTest(name);
    this.evidence.testStarted();
    this.world.testStarted();
  }

  testFinished(): void {
    for (const message of this.outcomes.take(true)) this.fail('RUN_UNOBSERVED', message);
    this.currentOwner.ended = true;
    this.currentOwner = this.fileOwner;
    this.runs.forgetActive();
    this.recording.testFinished();
    this.model.endTest();
    this.evidence.testFinished();
    this.world.testFinished();
    this.http.testFinished();
  }

  testEvidence(): TestEvidence {
    return this.evidence.evidence();
  }

  fileStats(): FileStats {
    return { ...this.evidence.fileStats(), ...this.recording.stats() };
  }

  drainFailures(): Failure[] {
    const unmatched = this.server
      .drainUnmatched()
      .map((message) => ({ code: 'MODEL_UNMATCHED' as const, message }));
    const failures = [...this.failures, ...unmatched, ...(this.bridge?.unhandled.splice(0) ?? [])];
    this.failures = [];
    return failures;
  }

  /** Records why the current test must fail even if the agent swallowed the error. */
  fail(code: ErrorCode, message: string): void {
    // A client that retries (a page reloading a resource) says the same thing once.
    if (this.failures.some((f) => f.code === code && f.message === message)) return;
    this.failures.push({ code, message });
  }
}

const RUNTIME_KEY = Symbol.for('jest-understudy.runtime');

/** The run a call belongs to, or why it is refused (see `SandboxRuntime.claim`). */
export type RuntimeClaim =
  | { run: RunRecorder | undefined; refused?: undefined }
  | { refused: Refusal; run?: undefined };

/** Why a model call or world operation was refused, with the status its answer carries. */
export interface Refusal {
  code: 'RUN_ENDED' | 'CONCURRENT_TEST';
  status: number;
  message: string;
}

/**
 * This test file's runtime, for the API a test calls (`understudy`, harnesses, drills, sweeps):
 * refused in a test.concurrent test (see CONCURRENT_TEST).
 */
export function getRuntime(): SandboxRuntime {
  const runtime = loadRuntime();
  runtime.refuseConcurrent(
    'used jest-understudy (understudy.model, .world, .run, .serve, a harness or a drill)',
  );
  return runtime;
}

/** This test file's runtime, created on first use; module resets do not create a second one. */
export function loadRuntime(): SandboxRuntime {
  const g = globalThis as Record<symbol, unknown>;
  const existing = g[RUNTIME_KEY] as SandboxRuntime | undefined;
  if (existing) return existing;
  const bridge = g[BRIDGE_KEY] as Bridge | undefined;
  if (!bridge) {
    throw new UnderstudyError('ENVIRONMENT_MISSING', missingEnvironmentMessage(sandboxFacts()));
  }
  const runtime = new SandboxRuntime(bridge.options, bridge);
  g[RUNTIME_KEY] = runtime;
  bridge.runtime = runtime;
  // Created lazily inside a running test: that test's registrations must still be test-scoped.
  if (bridge.currentTest !== undefined) runtime.testStarted(bridge.currentTest);
  return runtime;
}

/** The runtime if the environment is active, without creating one. */
export function hasEnvironment(): boolean {
  return (globalThis as Record<symbol, unknown>)[BRIDGE_KEY] !== undefined;
}

const CRASHED_RUN_ENDED =
  "jest-understudy: this request belonged to a run that crashed; the test file's tests are done";
