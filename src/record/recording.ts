/**
 * A test file's recording: it chooses each call's mode (a recording harness's run wins over the
 * file's), and hands each job to its own part, as Polly.js splits adapter from persister:
 * - ./replay-check.ts: a fixture answered; note its file, check it for staleness;
 * - ./forwarder.ts (the adapter): a call goes to the real provider; built on the first such call,
 *   so replay neither loads nor builds it;
 * - ./cassette-writer.ts (the persister): what a record mode recorded, written at the end of the file.
 */

import type { Conversation, ConversationStore, ProviderId } from '../conversation';
import type { ErrorCode } from '../errors';
import { credentialsOf } from '../files/secrets';
import { type Fixture, type RedactHook, sourceOf } from '../fixtures/types';
import type { ModelCall } from '../model/call';
import type { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import { loadSseParserWith } from '../providers/sse';
import type { RecordedCall } from './build';
import type { CassetteChange } from './cassette';
import { CassetteWriter, type Failure } from './cassette-writer';
import type { ForwardedTurn, Forwarder, ForwardRequest, ForwardTurn, RecordingTransport } from './forwarder';
import type { UnderstudyMode } from './mode';
import { replaysCassette } from './paths';
import { ReplayCheck, type ReplayedAnswer } from './replay-check';
import { RequestViews } from './request-views';
import { writeUsage } from './usage';

export type {
  ForwardedTurn,
  ForwardRequest,
  ForwardTurn,
  RecordingTransport,
  UpstreamRequest,
  WireRequest,
} from './forwarder';
export type { ReplayedAnswer } from './replay-check';

// Required on first use: replay without a cassette never needs the file loader (js-yaml, ajv), and
// replay never forwards; the package is evaluated in every test file.
const fixtureLoad = (): typeof import('../fixtures/load') => require('../fixtures/load');
const forwarding = (): typeof import('./forwarder') => require('./forwarder');
const nightly = (): typeof import('../nightly/live-calls') => require('../nightly/live-calls');
const pricing = (): typeof import('../pricing') => require('../pricing');

/** What the recording reads of its test file (the file's context, src/run/context.ts). */
export interface RecordingDeps {
  readonly model: MockModel;
  readonly options: ResolvedOptions;
  readonly threads: ConversationStore;
  /** The run the current call belongs to (see src/run/scope.ts). */
  readonly runs: { getStore(): { mode?: UnderstudyMode; pending?: Promise<unknown>[] } | undefined };
  fail(code: ErrorCode, message: string): void;
  readonly evidence?: { noteStaleCassette?(file: string): void };
  /** How it reaches the real provider: the runner adapter's. */
  readonly services: RecordingTransport;
}

/** What recording did in this file, for the reporter. */
export interface RecordingStats {
  /** Model calls recorded from the provider, per provider. */
  recorded: Record<string, number>;
  /** The cassette written, and what changed in it. */
  cassettes: CassetteChange[];
}

export class Recording {
  private currentTest: string | undefined;
  private readonly views: RequestViews;
  private readonly check: ReplayCheck;
  private readonly writer: CassetteWriter;
  /** Built by the first call that goes to the provider. */
  private forwarder: Forwarder | undefined;

  constructor(private readonly deps: RecordingDeps) {
    const { options } = deps;
    this.views = new RequestViews(deps.model, options.pii ?? []);
    this.check = new ReplayCheck(deps, this.views);
    this.writer = new CassetteWriter(options, deps.model);
    // Streamed replies are read back with eventsource-parser, an ES module: loaded outside the
    // test file where the environment offers that (in any mode: a harness can record too).
    const hostRequire = deps.services.hostRequire;
    if (hostRequire) loadSseParserWith(() => hostRequire('eventsource-parser'));
    if ((options.pii ?? []).length > 0)
      deps.model.viewRequests((conversation) => this.views.viewOf(conversation).conversation);
    // The cassette replays (and record-missing appends to it); record overwrites it, live ignores it.
    if (replaysCassette(options)) deps.model.register(fixtureLoad().loadFixtures(options.cassette), 'config');
  }

  get fileMode(): UnderstudyMode {
    return this.deps.options.mode;
  }

  /** The mode for a request: a run's own (a recording harness) wins over the file's. */
  modeFor(run: { mode?: UnderstudyMode } | undefined): UnderstudyMode {
    return run?.mode ?? this.deps.options.mode;
  }

  /** The mode of the run the current async context belongs to. */
  modeNow(): UnderstudyMode {
    return this.modeFor(this.deps.runs.getStore());
  }

  testStarted(name: string): void {
    this.currentTest = name;
    this.writer.testStarted(name);
  }

  testFinished(): void {
    if (this.currentTest !== undefined) this.writer.testFinished(this.currentTest);
    this.currentTest = undefined;
  }

  /** The recording of a call the provider answered, for `getRecordedFixtures()`. */
  recordedOf(call: ModelCall): RecordedCall | undefined {
    return this.forwarder?.recordedOf(call);
  }

  /** Resolves when every capture started so far has its reply. */
  async settled(): Promise<void> {
    await this.forwarder?.settled();
  }

  /**
   * A fixture answered: a cassette fixture is a step the record-missing cassette must still
   * replay; the check notes its file, checks it for staleness and restores personal data.
   */
  replayed(answer: ReplayedAnswer, conversation: Conversation, body: unknown, what: () => string): void {
    const { mode, cassette } = this.deps.options;
    if (mode === 'record-missing' && sourceOf(answer.entry.fixture)?.file === cassette)
      this.writer.answeredFromCassette({
        ...(this.currentTest !== undefined && { test: this.currentTest }),
        keys: answer.keys,
        answeredBy: answer.entry.fixture,
      });
    this.check.answered(answer, conversation, body, what, this.currentTest);
  }

  /** What recording did in this file, for the reporter. */
  stats(): RecordingStats {
    return this.writer.stats();
  }

  /** Sends the call to the provider and hands its real response back to the agent. */
  forward(request: ForwardRequest): Promise<Response | 'drop'> {
    const spent = this.liveBudgetSpent();
    if (spent !== undefined) {
      this.deps.fail('LIVE_BUDGET_SPENT', spent);
      // 402: no SDK retries it.
      const wire = request.codec.encodeError({ status: 402, type: 'budget_spent', message: spent });
      return Promise.resolve(new Response(wire.body, { status: wire.status, headers: wire.headers }));
    }
    return this.forwarderOf().forward(request);
  }

  /**
   * Sends one turn of a socket session to the provider over its connection's upstream session,
   * recorded as an HTTP call is; the reply comes back for the session to serve.
   */
  forwardTurn(turn: ForwardTurn): Promise<ForwardedTurn> {
    const spent = this.liveBudgetSpent();
    if (spent !== undefined) {
      this.deps.fail('LIVE_BUDGET_SPENT', spent);
      return Promise.resolve({ kind: 'error', error: { status: 402, type: 'budget_spent', message: spent } });
    }
    return this.forwarderOf().forwardTurn(turn);
  }

  /**
   * Record and live modes: why a spoken turn's audio may not go to the provider to be heard (the live
   * budget is spent, or the client sent no real key: its code and message), else undefined, the keys
   * it sent then noted as secrets.
   */
  refusesHearing(hearing: {
    provider: ProviderId;
    headers: Headers;
    url: string;
    keys: readonly string[];
    what: string;
  }): { code: ErrorCode; message: string } | undefined {
    const spent = this.liveBudgetSpent();
    if (spent !== undefined) return { code: 'LIVE_BUDGET_SPENT', message: spent };
    const keys = [...credentialsOf(hearing.headers, hearing.url), ...hearing.keys];
    const missing = forwarding().missingKey(this.modeNow(), hearing.provider, keys, hearing.what);
    return missing === undefined ? undefined : { code: 'RECORD_KEY_MISSING', message: missing };
  }

  /** In a live run's live mode, why the test's budget stops its next call to the provider. */
  private liveBudgetSpent(): string | undefined {
    if (this.modeNow() !== 'live' || !nightly().inLiveRun()) return undefined;
    return nightly().budgetSpent(this.deps.options.testPath, this.currentTest);
  }

  private forwarderOf(): Forwarder {
    this.forwarder ??= new (forwarding().Forwarder)(
      {
        model: this.deps.model,
        threads: this.deps.threads,
        fail: (code, message) => this.deps.fail(code, message),
        modeNow: () => this.modeNow(),
        runPending: () => this.deps.runs.getStore()?.pending,
        currentTest: () => this.currentTest,
        answered: (call) => this.charge(call),
      },
      this.deps.services,
      this.views,
      this.writer,
    );
    return this.forwarder;
  }

  /** In a repetition of `understudy live`, notes what the provider's answer cost for the run's budget. */
  private charge(call: ModelCall): void {
    const usage = call.response?.usage;
    if (!usage || this.modeNow() !== 'live' || !nightly().inLiveRun()) return;
    const model = call.response?.model ?? call.conversation.model;
    const usd = pricing().costOf(usage, call.provider, model, this.deps.options.prices);
    nightly().chargeCall(
      { file: this.deps.options.testPath, test: this.currentTest, provider: call.provider, model, usage },
      usd,
    );
  }

  /** Fixtures for recorded calls (harness.getRecordedFixtures). */
  fixturesOf(calls: readonly RecordedCall[], where: string, redact?: RedactHook): Fixture[] {
    return this.writer.fixturesOf(calls, where, redact);
  }

  /** The file is done: write the record-mode cassette and the usage record. Returns failures. */
  async fileFinished(failedTests: number): Promise<Failure[]> {
    await this.settled();
    const failures = this.writer.write(failedTests);
    const { mode, usageFile, testPath } = this.deps.options;
    if (usageFile && mode !== 'record' && mode !== 'live') {
      try {
        writeUsage(usageFile, testPath, this.check.used, this.check.stale);
      } catch {
        // Usage notes are a convenience for `fixtures check --unused`; a read-only tree must not fail tests.
      }
    }
    return failures;
  }
}
