import { abortReason, type Clock, createClock } from '../clock';
import { checkAnswer, checkRequest, describeViolation, enabledRules, type Violation } from '../contracts';
import type { Conversation, ConversationStore } from '../conversation';
import { UnderstudyError } from '../errors';
import { noteSecret } from '../files/secrets';
import type { Fixture, StreamShaping } from '../fixtures/types';
import { sourceOf } from '../fixtures/types';
import { MockModel } from '../model/mock-model';
import { type Pacing, pacingOf } from '../model/pacing';
import type { ProviderCodec } from '../providers/codec';
import { deliver } from '../providers/dialects/deliver';
import { ProviderRouter, type RouteTarget } from '../providers/registry';
import { createConversationStore } from '../providers/store';
import { credentialsOf, type UnderstudyMode } from '../record/mode';
import { Recording, type WireRequest } from '../record/recording';
import { OutcomeWatch } from '../run/outcomes';
import { RunScope } from '../run/scope';
import type { ModelCall } from '../run/types';
import type { FileStats, TestEvidence } from '../trace/evidence';
// The world (issue 3): this file's world, its HTTP routes and what runs collect of it.
import { type RunOperationEntry, WorldHost } from '../world/host';
import { BRIDGE_KEY, type Bridge, type ResolvedOptions, type SandboxRuntime } from './bridge';
import { EvidenceLog } from './evidence';
import { bodyTextOf, methodOf, signalOf, urlOf } from './request';
import { connectionDropped, droppedBeforeReply, toResponse, toStreamResponse } from './serve';

/** Deterministic `created` stamp (2026-01-01T00:00:00Z): replays must not depend on the clock. */
const CREATED = 1767225600;

/** Collects the model calls made inside one `understudy.run` / harness run. */
export interface RunRecorder {
  calls: ModelCall[];
  /** A recording or live harness run: its calls go to the provider whatever the file's mode. */
  mode?: UnderstudyMode;
  /** Captures of streamed provider replies still being read; the run waits for them. */
  pending?: Promise<unknown>[];
  /** World operations executed inside the run (the world's host pushes them). */
  operations?: RunOperationEntry[];
}

function shapingOf(fixture: Fixture): StreamShaping & Pacing {
  const r = fixture.response;
  const pacing = pacingOf(fixture);
  return {
    ...pacing,
    chunkSize: r.chunkSize ?? fixture.chunkSize,
    latency: r.latency ?? fixture.latency ?? fixture.chaos?.latencyMs ?? pacing?.latency,
    chunkDelay: r.chunkDelay ?? fixture.chunkDelay,
    truncateAfterChunks: r.truncateAfterChunks ?? fixture.truncateAfterChunks,
    disconnect: r.disconnect ?? fixture.disconnect,
    malformed: r.malformed ?? fixture.malformed,
  };
}

/** The per-file runtime in the test realm: the mock model, routing, and the test lifecycle. */
export class Runtime implements SandboxRuntime {
  readonly model: MockModel;
  readonly router: ProviderRouter;
  /** Which run a call belongs to (async context, else the only active run). */
  readonly runs = new RunScope<RunRecorder>((message) => this.fail(message));
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
  private callCount = 0;
  private failures: string[] = [];
  /** Unmatched calls waiting to fail the test, unless the test accepts them first. */
  private unmatchedPending: Array<{ call: ModelCall; message: string }> = [];

  constructor(
    readonly options: ResolvedOptions,
    private readonly bridge?: Bridge,
  ) {
    this.model = new MockModel({
      strictTurnIndex: options.strictTurnIndex,
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
    // Loads the configured world (option or @understudy-world pragma); a bad file fails the test file here.
    this.world = new WorldHost(
      {
        currentRun: () => this.runs.attribute(() => 'a world operation'),
        sleep: (ms, signal) => this.clock.sleep(ms, signal),
        fail: (message) => this.fail(message),
        currentTest: () => bridge?.currentTest,
      },
      options.world,
    );
  }

  /** Restarts the mock model's sequenceIndex counts and chaos draws, so each drill trial replays the same answers. */
  restartModelSequences(): void {
    this.model.restartSequences();
  }

  /** Whether a test is running (not a beforeAll/afterAll hook or the file's top level). */
  get inTest(): boolean {
    return this.bridge?.currentTest !== undefined;
  }

  async fileFinished(failedTests: number): Promise<string[]> {
    const unseen = this.outcomes
      .take(false)
      .map((m) => `A run made outside the tests (in a beforeAll/afterAll hook or at file level): ${m}`);
    return [...unseen, ...(await this.recording.fileFinished(failedTests))];
  }

  /** The fake clock is about to change: the world clock reads what it was advanced by. */
  timersChanging(): void {
    this.world.timersChanging();
  }

  handleFetch(input: unknown, init: unknown): Promise<Response> | undefined {
    const url = urlOf(input);
    const target = url === undefined ? undefined : this.router.route(url);
    const i = init as RequestInit | undefined;
    // Not a provider: maybe a world HTTP route (undefined leaves it to msw).
    if (!target && url !== undefined)
      return this.world.handleFetch(
        url,
        input,
        i,
        methodOf(input, i),
        () => bodyTextOf(input, i),
        signalOf(input, i),
      );
    if (!target || url === undefined) return undefined;
    const headers = () => new Headers((i?.headers ?? (input as Request | undefined)?.headers) as HeadersInit);
    return this.serve(
      target,
      url,
      methodOf(input, i),
      () => bodyTextOf(input, i),
      signalOf(input, i),
      headers,
    ).then((r) => {
      if (r === 'drop') throw connectionDropped();
      return r;
    });
  }

  handleRequest(request: Request): Promise<Response> | undefined {
    const target = this.router.route(request.url);
    if (!target) return this.world.handleRequest(request); // a world HTTP route, or undefined
    const headers = () => request.headers;
    return this.serve(
      target,
      request.url,
      request.method,
      () => request.text(),
      request.signal,
      headers,
    ).then((r) => (r === 'drop' ? Response.error() : r));
  }

  serves(origin: string): boolean {
    return this.router.serves(origin) || this.world.serves(origin);
  }

  testStarted(name: string): void {
    this.runs.forgetActive();
    this.recording.testStarted(name);
    this.model.beginTest();
    this.evidence.testStarted();
    this.world.testStarted();
  }

  testFinished(): void {
    for (const message of this.outcomes.take(true)) this.fail(message);
    this.runs.forgetActive();
    this.recording.testFinished();
    this.model.endTest();
    this.evidence.testFinished();
    this.world.testFinished();
  }

  testEvidence(): TestEvidence {
    return this.evidence.evidence();
  }

  fileStats(): FileStats {
    return this.evidence.fileStats();
  }

  drainFailures(): string[] {
    const unmatched = this.unmatchedPending
      .filter((u) => !this.model.isAccepted(u.call))
      .map((u) => u.message);
    const failures = [...this.failures, ...unmatched, ...(this.bridge?.unhandled.splice(0) ?? [])];
    this.failures = [];
    this.unmatchedPending = [];
    return failures;
  }

  /** Records why the current test must fail even if the agent swallowed the error. */
  fail(message: string): void {
    this.failures.push(message);
  }

  private async serve(
    target: RouteTarget,
    url: string,
    method: string,
    readBody: () => Promise<string>,
    signal: AbortSignal | undefined,
    headers: () => Headers = () => new Headers(),
  ): Promise<Response | 'drop'> {
    if (signal?.aborted) throw abortReason(signal);
    const codec = target.provider.codecs.find((c) => c.handles(method, target.path));
    // Embedding requests: their own codecs, answered from embedding fixtures (src/embeddings).
    const embeddings = codec
      ? undefined
      : target.provider.embeddings?.find((c) => c.handles(method, target.path));
    if (!codec && !embeddings) {
      const message = `jest-understudy does not mock ${method} ${url} (${target.provider.id} endpoint ${target.path}).`;
      this.fail(message);
      return toResponse(target.provider.notFound(message));
    }
    const startedAt = performance.now();
    // The request's credentials, whatever their shape, are blanked in every file written later.
    for (const key of credentialsOf(headers(), url)) noteSecret(key);
    const text = await readBody();
    if (!codec)
      return toResponse(
        (require('../embeddings/serve') as typeof import('../embeddings/serve')).serveEmbedding(
          embeddings as NonNullable<typeof embeddings>,
          text,
          { path: target.path, query: target.query, store: this.threads },
          url,
          this.model.embeddingFixtures,
          (call) => this.model.embeddings.push(call),
        ),
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return toResponse(
        codec.encodeError({
          status: 400,
          type: 'invalid_request_error',
          message: 'the request body is not valid JSON',
        }),
      );
    }
    const decoded = codec.decode(body, { path: target.path, query: target.query, store: this.threads });
    if (!decoded.ok) return toResponse(codec.encodeError(decoded.error));
    // aimock's fixture routing header (fixtures with `match.context`).
    const context = headers().get('x-aimock-context');
    if (context) decoded.conversation.context = context;
    return this.answer(codec, decoded.conversation, body, url, startedAt, signal, target.path, {
      method,
      headers,
      body: text,
    });
  }

  /** The request contracts that hold now: the option, then `understudy.model.contracts(…)` for the file and the test. */
  private contractRules() {
    return enabledRules(this.model.contractSettings(this.options.contracts));
  }

  /** Every model call goes to the file's call log, the test's evidence and the run it belongs to. */
  private logCall(call: ModelCall, run: RunRecorder | undefined): void {
    this.model.calls.push(call);
    this.evidence.noteCall(call);
    run?.calls.push(call);
  }

  /** A request the real API would refuse gets the API's error, is logged, and fails the test. */
  private refuse(
    codec: ProviderCodec,
    conversation: Conversation,
    request: unknown,
    url: string,
    startedAt: number,
    breach: Violation,
    run: RunRecorder | undefined,
  ): Response {
    const error = breach.error ?? { status: 400, type: 'invalid_request_error', message: breach.problem };
    const call: ModelCall = {
      index: this.callCount++,
      provider: codec.provider,
      protocol: codec.protocol,
      url,
      request,
      conversation,
      unmatched: false,
      streamed: conversation.stream,
      error,
      contract: { rule: breach.rule, at: breach.at },
      startedAt,
      durationMs: performance.now() - startedAt,
    };
    this.logCall(call, run);
    this.fail(describeViolation(breach, `this ${codec.protocol} request (POST ${url})`));
    return toResponse(codec.encodeError(error));
  }

  private async answer(
    codec: ProviderCodec,
    conversation: Conversation,
    request: unknown,
    url: string,
    startedAt: number,
    signal: AbortSignal | undefined,
    path: string,
    wire?: WireRequest,
  ): Promise<Response | 'drop'> {
    const run = this.runs.attribute(() => `a ${codec.protocol} model call (POST ${url})`);
    // Record and live modes send the call to the provider; record-missing only what no fixture matches.
    const mode = this.recording.modeFor(run);
    // Request contracts, before any fixture is chosen (the provider checks its own in record and live modes).
    const rules = this.contractRules();
    const breach =
      mode === 'record' || mode === 'live'
        ? undefined
        : checkRequest(
            {
              protocol: codec.protocol,
              body: request,
              conversation,
              store: this.threads,
              soleIssuer: mode === 'replay',
            },
            rules,
          );
    if (breach) return this.refuse(codec, conversation, request, url, startedAt, breach, run);
    const resolution =
      mode === 'record' || mode === 'live'
        ? undefined
        : this.model.resolve(
            conversation,
            `this ${codec.protocol} request (POST ${url})`,
            codec.toolCallIdPrefix,
          );
    if (wire && (!resolution || (resolution.kind === 'unmatched' && mode === 'record-missing'))) {
      return this.recording.forward({
        codec,
        conversation,
        request,
        url,
        startedAt,
        signal,
        wire,
        index: this.callCount++,
        register: (call) => this.logCall(call, run),
      });
    }
    if (!resolution) throw new Error('jest-understudy: a request reached the model without its wire form');
    if (resolution.kind !== 'unmatched')
      this.recording.replayed(
        resolution.entry.fixture,
        conversation,
        () => `this ${codec.protocol} request (POST ${url})`,
      );
    const index = this.callCount++;
    const call: ModelCall = {
      index,
      provider: codec.provider,
      protocol: codec.protocol,
      url,
      request,
      conversation,
      unmatched: resolution.kind === 'unmatched',
      streamed: conversation.stream,
      startedAt,
      durationMs: 0,
    };
    if (resolution.kind !== 'unmatched') {
      const { entry } = resolution;
      call.fixture = entry.fixture;
      call.fixtureIndex = entry.order;
      const src = sourceOf(entry.fixture);
      if (src) call.fixtureSource = src;
      if (resolution.turnIndexRelaxed) call.turnIndexRelaxed = true;
      if (resolution.fault) call.fault = resolution.fault;
    }
    this.logCall(call, run);

    // What the chosen fixture answers must be an answer the API could give.
    const answerBreach =
      resolution.kind === 'unmatched'
        ? undefined
        : checkAnswer(
            {
              protocol: codec.protocol,
              body: request,
              conversation,
              path,
              fixture: resolution.entry.fixture,
              order: resolution.entry.order,
              ...(resolution.kind === 'reply' ? { reply: resolution.reply } : {}),
            },
            rules,
          );
    if (answerBreach) {
      this.fail(describeViolation(answerBreach, `this ${codec.protocol} request (POST ${url})`));
      call.contract = { rule: answerBreach.rule, at: answerBreach.at };
    }

    let response: Response | 'drop';
    if (answerBreach?.error) {
      call.error = answerBreach.error;
      response = toResponse(codec.encodeError(answerBreach.error));
    } else if (resolution.kind === 'unmatched') {
      this.unmatchedPending.push({ call, message: resolution.message });
      call.error = { status: 404, type: 'invalid_request_error', message: resolution.message };
      response = toResponse(codec.encodeError(call.error));
    } else {
      const shaping = shapingOf(resolution.entry.fixture);
      const fault = resolution.fault;
      if (fault === 'malformed') shaping.malformed ??= true;
      if (fault === 'disconnect') shaping.disconnect = true;
      await this.clock.sleep(shaping.latency ?? 0, signal);
      const ctx = { callIndex: index, created: CREATED, shaping, store: this.threads };
      if (fault === 'drop' || droppedBeforeReply(shaping)) {
        call.error = { status: 0, type: 'connection_dropped', message: 'the mock model dropped the request' };
        response = 'drop';
      } else if (fault === 'rate_limit') {
        call.error = {
          status: 429,
          type: 'rate_limit_exceeded',
          message: 'Rate limit reached (seeded fault)',
          retryAfter: 0,
        };
        response = toResponse(codec.encodeError(call.error));
      } else if (resolution.kind === 'error') {
        call.error = resolution.error;
        response = toResponse(codec.encodeError(resolution.error));
      } else {
        // Stream dialects and mid-stream errors shape the reply (src/providers/dialects/deliver.ts).
        const delivery = this.model.dialectChooser.delivery(
          resolution.entry.fixture,
          fault,
          codec.protocol,
          resolution.reply,
          conversation.stream,
          this.options.dialect,
        );
        const out = deliver(codec, resolution.reply, conversation, ctx, delivery);
        if (delivery?.dialect) call.dialect = delivery.dialect;
        if (out.kind === 'error') {
          call.error = out.error;
          response = toResponse(codec.encodeError(out.error));
        } else {
          call.response = resolution.reply;
          if (delivery?.streamError) call.streamError = delivery.streamError;
          response =
            out.kind === 'stream'
              ? toStreamResponse(out.wire, shaping, this.clock, signal)
              : toResponse(out.wire, shaping);
        }
      }
    }
    call.durationMs = performance.now() - startedAt;
    return response;
  }
}

const RUNTIME_KEY = Symbol.for('jest-understudy.runtime');

/** This test file's runtime, created on first use; module resets do not create a second one. */
export function getRuntime(): Runtime {
  const g = globalThis as Record<symbol, unknown>;
  const existing = g[RUNTIME_KEY] as Runtime | undefined;
  if (existing) return existing;
  const bridge = g[BRIDGE_KEY] as Bridge | undefined;
  if (!bridge) {
    throw new UnderstudyError(
      'ENVIRONMENT_MISSING',
      "jest-understudy's environment is not active for this test file. Set `preset: 'jest-understudy'` " +
        "(or `testEnvironment: 'jest-understudy/environment'`) in your Jest config, or add the docblock " +
        '`@jest-environment jest-understudy/environment` at the top of the file.',
    );
  }
  const runtime = new Runtime(bridge.options, bridge);
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
