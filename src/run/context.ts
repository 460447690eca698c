/**
 * The context of one test file: what every part of its session shares. Its options, clock and
 * conversation threads; its mock model, recording and world; the runs going on and how they
 * ended; the test running now, the phase of its lifecycle, and the failures waiting for it.
 *
 * One object, built first and handed whole to each part that needs the file (the world and the
 * door every tool call goes through, the recording, the evidence log, the run scope, and in the
 * session above: the model server, the test's own msw handlers, the served port, the browser
 * routing). A part reads a sibling through it when it needs it, never while it is being built.
 *
 * It knows no test runner: the runner adapter (for Jest, environment/jest/)
 * tells the session (src/sandbox/runtime.ts) when a test starts, is skipped or finishes and which
 * phase runs, and lends it what only the runner has (`RunnerServices`); the session tells this.
 */
import { type Clock, createClock } from '../clock';
import type { ConversationStore } from '../conversation';
import { type ErrorCode, UnderstudyError } from '../errors';
import { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import { createConversationStore } from '../providers/store';
import { Recording, type RecordingTransport } from '../record/recording';
import type { UpstreamConnector } from '../sockets/protocol';
import type { Phase } from '../trace/evidence';
import { WorldHost } from '../world/host/host';
import { concurrentTestMessage } from './concurrent';
import { EvidenceLog } from './evidence';
import { OutcomeWatch } from './outcomes';
import type { RunRecorder } from './recorder';
import { Owner, RunScope } from './scope';
import type { RunSession } from './session';

/** Why a test (or the file) must fail: the runner adapter fails it with an `UnderstudyError` of this code. */
export interface Failure {
  code: ErrorCode;
  message: string;
}

/** A test.concurrent test whose body is running. */
export interface ConcurrentTest {
  readonly name: string;
  /** Fails this test (when it ends), whatever its body caught. */
  fail(failure: Failure): void;
}

/**
 * What a runner adapter lends the session: what only the runner's side has. Each is optional,
 * and read when needed (an adapter may set them after the session exists).
 */
export interface RunnerServices extends RecordingTransport {
  /** Opens a WebSocket to the provider past the interception (socket sessions in record and live modes). */
  upstreamSocket?: UpstreamConnector;
  /**
   * For a request nothing of the file answered, made by a client outside this process (a browser
   * page the test drives): the network policy's refusal message, or undefined when the policy lets
   * it through (a loopback server of this process, `network.allow`). Records nothing.
   */
  refusal?: (method: string, url: string, transport: string) => string | undefined;
  /**
   * The test.concurrent test the current code runs in (told by async context), when the file has
   * any: jest-understudy refuses them (./concurrent.ts), and `fail` fails that test.
   */
  concurrentTest?: () => ConcurrentTest | undefined;
}

/** Why a model call or world operation was refused, with the status its answer carries. */
export interface Refusal {
  code: 'RUN_ENDED' | 'CONCURRENT_TEST';
  status: number;
  message: string;
}

/** The run a call belongs to, or why it is refused (see `FileContext.claim`). */
export type RunClaim =
  | { run: RunRecorder | undefined; refused?: undefined }
  | { refused: Refusal; run?: undefined };

export class FileContext {
  readonly clock: Clock;
  /** Threads stateful protocols chain by response id, for the whole file. */
  readonly threads: ConversationStore = createConversationStore();
  /** Which run a call belongs to (async context, else the only active run). */
  readonly runs: RunScope<RunRecorder>;
  /** Runs that ended errored or timed out, until the test (or file) that made them looked or ended. */
  readonly outcomes = new OutcomeWatch();
  /** What the current test did (runs, model calls, failed expectations), for traces and the reporter. */
  readonly evidence: EvidenceLog;
  readonly model: MockModel;
  /** Record, record-missing and live modes; cassette staleness and fixture usage. */
  readonly recording: Recording;
  /** This file's world (`understudy.world`), the door of its tool calls, its HTTP and MCP transports, drills. */
  readonly world: WorldHost;
  /** A sweep or provider matrix running the test body again (./session.ts). */
  session: RunSession | undefined;
  /** The test running now; undefined in hooks outside tests and at the file's top level. */
  private current: string | undefined;
  /** The phase of the test lifecycle running now, as the runner adapter said. */
  phase: Phase | undefined;
  /** The file's own calls (hooks outside tests, its top level). */
  private readonly fileOwner = new Owner(undefined);
  /** The test running now, else the file: whom its calls and failures belong to. */
  private currentOwner = this.fileOwner;
  private failures: Failure[] = [];
  /** Failures of no test: calls of a test that arrived after it ended fail the file, never the test running then. */
  private fileFailures: Failure[] = [];

  constructor(
    readonly options: ResolvedOptions,
    readonly services: RunnerServices = {},
  ) {
    this.clock = createClock(options.timeScale);
    this.runs = new RunScope<RunRecorder>(this);
    this.evidence = new EvidenceLog(this);
    this.model = new MockModel({
      strictTurnIndex: options.strictTurnIndex,
      // Fixtures registered from a concurrent test would answer the other tests' requests.
      guard: (what) => this.refuseConcurrent(what),
      // The trace of a test then shows what came after the reset, and says what it let go.
      onReset: () => this.evidence.release(),
    });
    if (options.fixtures.length > 0) {
      // Required here: the file loader pulls in js-yaml and ajv, which only configs with fixture files need.
      const { loadFixtureFiles } = require('../fixtures/load') as typeof import('../fixtures/load');
      this.model.register(loadFixtureFiles(options.fixtures), 'config');
    }
    this.recording = new Recording(this);
    // Loads the configured world (option or @understudy-world pragma); a bad file fails the test file here.
    this.world = new WorldHost(this, options.world);
  }

  /** The test running now; undefined in hooks outside tests and at the file's top level. */
  get test(): string | undefined {
    return this.current;
  }

  /** Whether a test is running (not a beforeAll/afterAll hook or the file's top level). */
  get inTest(): boolean {
    return this.current !== undefined;
  }

  // ── The test lifecycle, as the session hands it on ────────────────────────────

  testStarted(name: string): void {
    this.current = name;
    this.currentOwner = new Owner(name);
    this.runs.forgetActive();
    this.recording.testStarted(name);
    this.model.beginTest(name);
    this.evidence.testStarted();
    this.world.testStarted();
  }

  /** The test that started will not run (it is skipped): no test runs now. */
  testSkipped(): void {
    this.current = undefined;
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
    this.current = undefined;
  }

  /** The file's tests are done: what runs outside the tests left unobserved, late calls, and the cassette. */
  async fileFinished(failedTests: number): Promise<Failure[]> {
    const unseen = this.outcomes.take(false).map((message) => ({
      code: 'RUN_UNOBSERVED' as const,
      message: `A run made outside the tests (in a beforeAll/afterAll hook or at file level): ${message}`,
    }));
    await this.world.fileFinished();
    const late = this.fileFailures.splice(0);
    return [...unseen, ...late, ...(await this.recording.fileFinished(failedTests))];
  }

  /** Restarts the mock model's sequenceIndex counts and chaos draws, so each drill trial replays the same answers. */
  restartModelSequences(): void {
    this.model.restartSequences();
  }

  // ── Whom calls belong to ──────────────────────────────────────────────────────

  /** The test running now, else the file. */
  owner(): Owner {
    return this.currentOwner;
  }

  /** The run the current code belongs to: its async context's, else the only active run. */
  currentRun(): RunRecorder | undefined {
    return this.runs.getStore();
  }

  /**
   * The run a model call or world operation belongs to, or why it is refused: it was made in a
   * concurrent test, or after its run (or its run's test) ended. The failure is recorded here.
   */
  claim(what: () => string): RunClaim {
    const concurrent = this.refusedConcurrent(what);
    if (concurrent) return { refused: { code: 'CONCURRENT_TEST', status: 409, message: concurrent } };
    const claim = this.runs.claim(what);
    return claim.refused !== undefined
      ? { refused: { code: 'RUN_ENDED', status: 410, message: claim.refused } }
      : claim;
  }

  /** Why a call that belongs to no run (an embedding request) is refused: as `claim`, without attributing it. */
  admit(what: () => string): Refusal | undefined {
    const concurrent = this.refusedConcurrent(what);
    if (concurrent) return { code: 'CONCURRENT_TEST', status: 409, message: concurrent };
    const late = this.runs.refuseIfLate(what);
    return late === undefined ? undefined : { code: 'RUN_ENDED', status: 410, message: late };
  }

  /** For a test.concurrent test: fails it and throws (see CONCURRENT_TEST). `what` names the use. */
  refuseConcurrent(what: string): void {
    const test = this.services.concurrentTest?.();
    if (!test) return;
    throw new UnderstudyError('CONCURRENT_TEST', this.failConcurrent(test, what));
  }

  /** When the current code runs in a concurrent test: fails that test and says why, for a call `what` names. */
  private refusedConcurrent(what: () => string): string | undefined {
    const test = this.services.concurrentTest?.();
    return test && this.failConcurrent(test, `made ${what()}`);
  }

  private failConcurrent(test: ConcurrentTest, what: string): string {
    const message = concurrentTestMessage(test.name, what);
    test.fail({ code: 'CONCURRENT_TEST', message });
    return message;
  }

  /** The network policy's message for a request from outside this process nothing answered; undefined: it passes. */
  refusal(method: string, url: string, transport: string): string | undefined {
    if (!this.services.refusal)
      return `${method} ${url} (transport: ${transport}) was not served: jest-understudy's environment is not active.`;
    return this.services.refusal(method, url, transport);
  }

  // ── Failures ──────────────────────────────────────────────────────────────────

  /** Records why the current test must fail even if the agent swallowed the error. */
  fail(code: ErrorCode, message: string): void {
    // A client that retries (a page reloading a resource) says the same thing once.
    if (this.failures.some((f) => f.code === code && f.message === message)) return;
    this.failures.push({ code, message });
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

  /** A refused request (the network policy's) made in the context of a run that has ended: its test's, else the file's. */
  lateFailure(code: ErrorCode, message: string): boolean {
    const owner = this.runs.lateOwner();
    if (!owner) return false;
    this.failOwner(owner, code, message);
    return true;
  }

  /** The failures recorded since the last time, for the current test (or the file). */
  takeFailures(): Failure[] {
    const failures = this.failures;
    this.failures = [];
    return failures;
  }
}
