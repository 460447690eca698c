import { type ErrorCode, UnderstudyError } from '../errors';
import { type Failure, FileContext, type RunnerServices } from '../run/context';
import type { SocketAcceptance, SocketOffer } from '../sockets/carrier';
import type { FileStats, Phase, TestEvidence } from '../trace/evidence';
import { BRIDGE_KEY, type Bridge, type FileSession } from './bridge';
import type { UserHandlers } from './http-handlers';
import { missingEnvironmentMessage, sandboxFacts } from './missing-environment';
import { FileRequests } from './requests';
import type { Served } from './serve-mode';
import { FileSockets } from './sockets';

// Required on the first `understudy.serve()`: most files never start a port.
const serveModeModule = (): typeof import('./serve-mode') => require('./serve-mode');

/**
 * The per-file session: one test file's context (src/run/context.ts: its model, world, runs,
 * evidence and failures), the answering of its requests (./requests.ts) and its served port, as
 * a runner adapter drives them (`FileSession`, ./bridge.ts). It knows no runner: the adapter tells
 * it where the file is and drains what it gives back.
 */
export class SandboxRuntime implements FileSession {
  readonly context: FileContext;
  readonly requests: FileRequests;
  private served: Promise<Served> | undefined;
  private fileSockets: FileSockets | undefined;

  constructor(options: FileContext['options'], services: RunnerServices = {}) {
    this.context = new FileContext(options, services);
    this.requests = new FileRequests(this.context);
  }

  /** The test's own msw handlers (`understudy.http`, `setupServer`, the `handlers` option). */
  get http(): UserHandlers {
    return this.requests.http;
  }

  /** The file's WebSockets to served hosts, made on the first one. */
  get sockets(): FileSockets {
    this.fileSockets ??= new FileSockets(this.requests);
    return this.fileSockets;
  }

  /** `understudy.serve()`: this file's one served port, started on first call. */
  serve(): Promise<Served> {
    this.served ??= serveModeModule()
      .startServing(
        this.requests,
        () => {
          this.served = undefined;
        },
        () => this.sockets,
      )
      .catch((error: unknown) => {
        this.served = undefined;
        throw error;
      });
    return this.served;
  }

  // ── What the runner adapter tells it ──────────────────────────────────────────

  testStarted(name: string): void {
    this.context.testStarted(name);
    this.fileSockets?.testStarted();
  }

  testSkipped(): void {
    this.context.testSkipped();
  }

  phaseChanged(phase: Phase | undefined): void {
    this.context.phase = phase;
  }

  testFinished(): void {
    this.context.testFinished();
    this.requests.http.testFinished();
    this.fileSockets?.testFinished();
  }

  /** The fake clock is about to change: the world clock reads what it was advanced by. */
  timersChanging(): void {
    this.context.world.timersChanging();
  }

  async fileFinished(failedTests: number): Promise<Failure[]> {
    this.requests.fileFinished();
    this.fileSockets?.fileFinished();
    await (await this.served?.catch(() => undefined))?.close();
    return this.context.fileFinished(failedTests);
  }

  // ── The requests the adapter intercepted ──────────────────────────────────────

  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    return this.requests.handleFetch(input, init);
  }

  handleRequest(request: Request): Promise<Response | undefined> | undefined {
    return this.requests.handleRequest(request);
  }

  serves(origin: string): boolean {
    return this.requests.serves(origin);
  }

  acceptSocket(offer: SocketOffer): SocketAcceptance | undefined {
    return this.sockets.accept(offer);
  }

  answersHttp(): boolean {
    return this.requests.answersHttp();
  }

  lateFailure(code: ErrorCode, message: string): boolean {
    return this.context.lateFailure(code, message);
  }

  // ── What it gives back ────────────────────────────────────────────────────────

  drainFailures(): Failure[] {
    const failures = this.context.takeFailures();
    for (const message of this.requests.drainUnmatched()) failures.push({ code: 'MODEL_UNMATCHED', message });
    return failures;
  }

  testEvidence(): TestEvidence {
    const evidence = this.context.evidence.evidence();
    const sessions = this.fileSockets?.evidence() ?? [];
    return sessions.length > 0 ? { ...evidence, sessions } : evidence;
  }

  fileStats(): FileStats {
    return { ...this.context.evidence.fileStats(), ...this.context.recording.stats() };
  }
}

const SESSION_KEY = Symbol.for('jest-understudy.runtime');

/**
 * This test file's session, for the API a test calls (`understudy`, harnesses, drills, sweeps):
 * refused in a test.concurrent test (see CONCURRENT_TEST).
 */
export function getRuntime(): SandboxRuntime {
  const runtime = loadRuntime();
  runtime.context.refuseConcurrent(
    'used jest-understudy (understudy.model, .world, .run, .serve, a harness or a drill)',
  );
  return runtime;
}

/** This test file's context: its model, world and runs (see `getRuntime`). */
export function getContext(): FileContext {
  return getRuntime().context;
}

/** This test file's session, created on first use; module resets do not create a second one. */
export function loadRuntime(): SandboxRuntime {
  const g = globalThis as Record<symbol, unknown>;
  const existing = g[SESSION_KEY] as SandboxRuntime | undefined;
  if (existing) return existing;
  const bridge = g[BRIDGE_KEY] as Bridge | undefined;
  if (!bridge) {
    throw new UnderstudyError('ENVIRONMENT_MISSING', missingEnvironmentMessage(sandboxFacts()));
  }
  const runtime = new SandboxRuntime(bridge.options, bridge);
  g[SESSION_KEY] = runtime;
  // Created lazily, maybe inside a running test: the adapter tells it where the file is, so that
  // test's registrations are still test-scoped.
  bridge.session = runtime;
  bridge.attach?.(runtime);
  return runtime;
}

/** Whether the environment is active (without creating the session). */
export function hasEnvironment(): boolean {
  return (globalThis as Record<symbol, unknown>)[BRIDGE_KEY] !== undefined;
}
