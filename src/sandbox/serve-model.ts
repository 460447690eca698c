import {
  checkAnswer,
  checkRequest,
  describeViolation,
  enabledRules,
  type Violation,
  violation,
} from '../contracts';
import {
  type Conversation,
  JUDGE_CONTEXT,
  JUDGE_HEADER,
  type NeutralError,
  type NeutralReply,
  type ProviderId,
} from '../conversation';
import { noteCredentials } from '../files/secrets';
import { type Fixture, type FixtureStreamError, type StreamShaping, sourceOf } from '../fixtures/types';
import type { CutReason, ModelCall } from '../model/call';
import { cutCall, replyOfEvents } from '../model/delivered';
import type { Resolution } from '../model/mock-model';
import { outOfOrder } from '../model/out-of-order';
import { type Pacing, pacingOf } from '../model/pacing';
import type { ProviderCodec, WireResponse } from '../providers/codec';
import { deliver } from '../providers/dialects/deliver';
import type { EmbeddingCodec } from '../providers/embedding-codec';
import { endpointsOf, optionNameOf, type RouteTarget } from '../providers/registry';
import type { UnderstudyMode } from '../record/mode';
import type { WireRequest } from '../record/recording';
import type { FileContext } from '../run/context';
import type { RunRecorder } from '../run/recorder';
import { noteSessionCall } from './session-log';
import { droppedBeforeReply, plainAnswer, streamAnswer, type WireAnswer } from './wire';

/** Deterministic `created` stamp (2026-01-01T00:00:00Z): replays must not depend on the clock. */
const CREATED = 1767225600;

/** What a chaos `streamErrorRate` hit sends (the provider's error type is its own default). */
const SEEDED_STREAM_ERROR: FixtureStreamError = {
  message: 'The server had an error while processing your request (seeded fault).',
};

// Required when a request was not streamed and its reply had to fail mid-stream.
const streamErrors = (): typeof import('../providers/dialects/stream-error') =>
  require('../providers/dialects/stream-error');
// Required on the first embedding request.
const embeddingServer = (): typeof import('../embeddings/serve') => require('../embeddings/serve');

/** A request to a provider host, as any transport hands it over. */
export interface ModelRequest {
  url: string;
  method: string;
  readBody(): Promise<string>;
  /** One header (null when absent), without building a `Headers`. */
  header(name: string): string | null;
  /** All of them, for a call forwarded to the provider. */
  headers(): Headers;
  /** Visits each header, as `Headers.forEach` does, without building a `Headers`. */
  eachHeader(visit: (value: string, name: string) => void): void;
  /**
   * Aborts when the caller gives up. Read only where something waits on it (a latency, a paced
   * stream, the provider): the served port makes it on first read. An already aborted request
   * never reaches `serve` (its transport rejects it first).
   */
  readonly signal: AbortSignal | undefined;
}

/** What goes back on the wire for one call; `latency` (ms) is waited for first, when set. */
export type WireOutcome =
  | {
      kind: 'reply';
      reply: NeutralReply;
      fixture: Fixture;
      shaping: StreamShaping & Pacing;
      latency: number;
      /** The stream ends with this error event after the 200. */
      streamError?: FixtureStreamError;
    }
  | { kind: 'error'; error: NeutralError; latency?: number }
  | { kind: 'drop'; error: NeutralError; latency: number };

/** How a call was answered, before it is put on the wire. */
export type Answer =
  | { kind: 'refused'; breach: Violation }
  | { kind: 'unsendable'; error: NeutralError }
  | { kind: 'unmatched'; message: string }
  | { kind: 'resolved'; resolution: Exclude<Resolution, { kind: 'unmatched' }>; breach?: Violation };

/**
 * Every way a call ends on the wire, in one place:
 * - a request that breaks a contract: the API's own error (else a 400 naming the problem);
 * - a request no fixture matches: a 404 in the provider's format;
 * - a fixture answer the API could not give: the contract's error;
 * - a fixture reply the protocol cannot send as written (text after a tool call, where the wire
 *   keeps a reply's text apart from its calls): a 500;
 * - a seeded fault: `drop` (no response), `rate_limit` (a 429), `malformed` and `disconnect`
 *   (the reply, damaged as it is sent); a connection that drops (`disconnectAfterMs`) before
 *   the answer is due: no response either;
 * - the fixture's error, else its reply;
 * - a reply that fails mid-stream (the fixture's `streamError`, a seeded `stream_error`): the
 *   stream ends with the provider's error event, and a request that was not streamed gets the
 *   same failure as an error response.
 * Only a fixture's answer waits for its latency (a fault included).
 */
export function outcomeOf(answer: Answer, streamed: boolean): WireOutcome {
  if (answer.kind === 'refused') {
    const { breach } = answer;
    return {
      kind: 'error',
      error: breach.error ?? { status: 400, type: 'invalid_request_error', message: breach.problem },
    };
  }
  if (answer.kind === 'unsendable') return { kind: 'error', error: answer.error };
  if (answer.kind === 'unmatched')
    return {
      kind: 'error',
      error: { status: 404, type: 'invalid_request_error', message: answer.message },
    };
  const { resolution, breach } = answer;
  if (breach?.error) return { kind: 'error', error: breach.error };
  const { fixture } = resolution.entry;
  const shaping = shapingOf(fixture);
  const latency = shaping.latency ?? 0;
  if (resolution.fault === 'drop' || droppedBeforeReply(shaping))
    return {
      kind: 'drop',
      error: { status: 0, type: 'connection_dropped', message: 'the mock model dropped the request' },
      latency,
    };
  switch (resolution.fault) {
    case 'rate_limit':
      return {
        kind: 'error',
        error: {
          status: 429,
          type: 'rate_limit_exceeded',
          message: 'Rate limit reached (seeded fault)',
          retryAfter: 0,
        },
        latency,
      };
    case 'malformed':
      shaping.malformed ??= true;
      break;
    case 'disconnect':
      shaping.disconnect = true;
      break;
  }
  if (resolution.kind === 'error') return { kind: 'error', error: resolution.error, latency };
  const streamError =
    fixture.response.streamError ?? (resolution.fault === 'stream_error' ? SEEDED_STREAM_ERROR : undefined);
  if (streamError && !streamed)
    return { kind: 'error', error: streamErrors().plainStreamError(streamError), latency };
  return {
    kind: 'reply',
    reply: resolution.reply,
    fixture,
    shaping,
    latency,
    ...(streamError && { streamError }),
  };
}

/** A model call as `ModelServer.judge` reads it, whatever carried it. */
export interface JudgedRequest {
  protocol: string;
  provider: ProviderId;
  toolCallIdPrefix?: string;
  url: string;
  /** Path below the provider's base URL. */
  path: string;
  /** The request as the call log keeps it, and the contracts read it. */
  body: unknown;
  conversation: Conversation;
  startedAt: number;
  mode: UnderstudyMode;
  header?: (name: string) => string | null;
  /** The call, for messages: `this openai.chat request (POST …)`. */
  what: string;
  /** The wire keeps the order of a reply's text and calls (see `ProviderCodec.keepsOrder`). */
  keepsOrder?: boolean;
  /** A judge's call (toSatisfyJudge): its matcher, not the test's end, fails an unmatched one. */
  judge?: boolean;
}

/** What `judge` decided: the provider answers, or a registered-to-be call gets this answer. */
export type Judgement =
  | { kind: 'forward' }
  | { kind: 'answer'; call: ModelCall; answer: Answer; failTest?: () => void };

/** Why nothing serves a request to a provider's base URL, with what each provider listed there serves. */
function unsupportedEndpoint(target: RouteTarget, method: string, url: string): string {
  const head = `jest-understudy does not mock ${method} ${url} (${target.provider.id} endpoint ${target.path}).`;
  const listed = target.listed ?? [{ provider: target.provider, baseURL: target.baseURL, path: target.path }];
  const lines = listed.map(
    (l) =>
      `  ${optionNameOf(l.provider)} (base URL ${l.baseURL}) serves ${endpointsOf(l.provider).join(', ')}`,
  );
  return listed.length > 1
    ? `${head}\n  Several providers are listed at this URL and none serves it:\n${lines.join('\n')}`
    : `${head}\n${lines[0]}`;
}

/**
 * A fixture's stream shaping and pacing: its response's, else the fixture's own, else its chaos
 * latency, else its pacing's (aimock's `streamingProfile`, `recordedTimings`, `disconnectAfterMs`).
 */
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

/** The request's body; the credentials it carries, whatever their shape, are blanked in every file written later. */
function readNoting(request: ModelRequest): Promise<string> {
  noteCredentials({ forEach: (visit) => request.eachHeader(visit) }, request.url);
  return request.readBody();
}

/** The per-file model server: every request to a provider host goes through `serve`. */
export class ModelServer {
  /** Position of the next call in the file's call log. */
  private callCount = 0;
  /** Unmatched calls waiting to fail the test, unless the test accepts them first. */
  private unmatched: Array<{ call: ModelCall; message: string }> = [];

  constructor(readonly context: FileContext) {}

  /** The unmatched calls since the last drain that the test did not accept. */
  drainUnmatched(): string[] {
    const messages = this.unmatched
      .filter((u) => !this.context.model.isAccepted(u.call))
      .map((u) => u.message);
    this.unmatched = [];
    return messages;
  }

  async serve(target: RouteTarget, request: ModelRequest): Promise<WireAnswer> {
    const { context } = this;
    const { url, method } = request;

    // 1. Route.
    const codec = target.provider.codecs.find((c) => c.handles(method, target.path));
    if (!codec) {
      const embeddings = target.provider.embeddings?.find((c) => c.handles(method, target.path));
      if (embeddings) return this.serveEmbedding(embeddings, target, request);
      const message = unsupportedEndpoint(target, method, url);
      context.fail('ENDPOINT_UNSUPPORTED', message);
      return plainAnswer(target.provider.notFound(message));
    }
    const startedAt = performance.now();

    // 2. Read.
    const text = await readNoting(request);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return this.unreadable(codec.protocol, url, codec.encodeError, {
        status: 400,
        type: 'invalid_request_error',
        message: 'the request body is not valid JSON',
      });
    }

    // 3. Decode.
    const decoded = codec.decode(body, { path: target.path, query: target.query, store: context.threads });
    if (!decoded.ok) return this.unreadable(codec.protocol, url, codec.encodeError, decoded.error);
    const { conversation } = decoded;
    // aimock's fixture routing header (fixtures with `match.context`).
    const aimockContext = request.header('x-aimock-context');
    if (aimockContext) conversation.context = aimockContext;
    // A judge's call (toSatisfyJudge) is the package's own: it belongs to no run.
    const judge = request.header(JUDGE_HEADER) !== null;
    if (judge) conversation.context = JUDGE_CONTEXT;
    const what = `${judge ? "the judge's" : 'this'} ${codec.protocol} request (POST ${url})`;

    // 4. Mode: record and live send every call to the provider; record-missing what no fixture matches.
    // A call of no run (its run or test ended, or a concurrent test's) is refused, and has failed its test.
    const claim = judge
      ? refusedOrNone(context.admit(() => `a judge's ${codec.protocol} call (POST ${url})`))
      : context.claim(() => `a ${codec.protocol} model call (POST ${url})`);
    if (claim.refused)
      return plainAnswer(codec.encodeError({ type: 'invalid_request_error', ...claim.refused }));
    const run = claim.run;
    const mode = context.recording.modeFor(run);

    // 5–9. Contracts, fixtures, registration.
    const judged = this.judge({
      protocol: codec.protocol,
      provider: codec.provider,
      toolCallIdPrefix: codec.toolCallIdPrefix,
      url,
      path: target.path,
      body,
      conversation,
      startedAt,
      mode,
      header: (name) => request.header(name),
      what,
      keepsOrder: codec.keepsOrder,
      judge,
    });

    // 7. Forward.
    if (judged.kind === 'forward') {
      const wire: WireRequest = { method, headers: () => request.headers(), body: text };
      return context.recording
        .forward({
          codec,
          conversation,
          request: body,
          url,
          startedAt,
          signal: request.signal,
          wire,
          index: this.callCount++,
          register: (call) => this.register(call, run),
        })
        .then((response) => (response === 'drop' ? { kind: 'drop' } : { kind: 'response', response }));
    }
    return this.answer(judged.call, judged.answer, codec, conversation, run, request, judged.failTest);
  }

  /**
   * Steps 5–9 of any model call, whatever carried it (an HTTP request, a socket's turn): the
   * request contracts, the fixture, the answer contracts. Record and live modes (and
   * record-missing with no fixture) send the call to the provider instead: `forward`.
   */
  judge(request: JudgedRequest): Judgement {
    const { context } = this;
    const { protocol, body, conversation, mode, what } = request;
    const fromProvider = mode === 'record' || mode === 'live';

    // 5. Request contracts, before any fixture is chosen (the provider checks its own when it answers).
    const rules = enabledRules(context.model.contractSettings(context.options.contracts));
    const breach = fromProvider
      ? undefined
      : checkRequest(
          {
            protocol,
            body,
            conversation,
            store: context.threads,
            soleIssuer: mode === 'replay',
            header: request.header,
          },
          rules,
        );
    if (breach) {
      const call = this.newCall(request);
      call.contract = { rule: breach.rule, at: breach.at };
      return {
        kind: 'answer',
        call,
        answer: { kind: 'refused', breach },
        failTest: () => context.fail('CONTRACT_BREACH', describeViolation(breach, what)),
      };
    }

    // 6. Resolve.
    const resolution = fromProvider
      ? undefined
      : context.model.resolve(conversation, what, request.toolCallIdPrefix);
    if (!resolution || (resolution.kind === 'unmatched' && mode === 'record-missing'))
      return { kind: 'forward' };

    // 8. Register (a cassette fixture is checked for staleness, and its use noted, as it answers).
    if (resolution.kind === 'unmatched') {
      const call = this.newCall(request);
      call.unmatched = true;
      // The judge's matcher fails with what to record; the agent's unmatched calls fail the test.
      if (!request.judge) this.unmatched.push({ call, message: resolution.message });
      return { kind: 'answer', call, answer: { kind: 'unmatched', message: resolution.message } };
    }
    // Recording checks a cassette answer (stale, a tool no longer offered) and may put personal data back into it.
    context.recording.replayed(resolution, conversation, body, () => what);
    const call = this.newCall(request);
    const { entry } = resolution;
    call.fixture = entry.fixture;
    call.fixtureIndex = entry.order;
    const source = sourceOf(entry.fixture);
    if (source) call.fixtureSource = source;
    if (resolution.turnIndexRelaxed) call.turnIndexRelaxed = true;
    if (resolution.fault) call.fault = resolution.fault;

    // Text after a call, on a protocol that would send it first: refused, not reordered.
    if (resolution.kind === 'reply' && resolution.reply.order && !request.keepsOrder) {
      const refused = outOfOrder(protocol, entry.fixture, entry.order, what);
      return {
        kind: 'answer',
        call,
        answer: { kind: 'unsendable', error: refused.error },
        failTest: () => context.fail('REPLY_ORDER_UNSUPPORTED', refused.message),
      };
    }

    // 9. Answer contracts.
    const answerBreach = checkAnswer(
      {
        protocol,
        body,
        conversation,
        path: request.path,
        fixture: entry.fixture,
        order: entry.order,
        ...(resolution.kind === 'reply' ? { reply: resolution.reply } : {}),
      },
      rules,
    );
    if (answerBreach) call.contract = { rule: answerBreach.rule, at: answerBreach.at };
    return {
      kind: 'answer',
      call,
      answer: { kind: 'resolved', resolution, ...(answerBreach && { breach: answerBreach }) },
      ...(answerBreach && {
        failTest: () => context.fail('CONTRACT_BREACH', describeViolation(answerBreach, what)),
      }),
    };
  }

  /** 10–11: the call is registered, the outcome decided, waited for and encoded. */
  private async answer(
    call: ModelCall,
    answer: Answer,
    codec: ProviderCodec,
    conversation: Conversation,
    run: RunRecorder | undefined,
    request: Pick<ModelRequest, 'signal'>,
    failTest?: () => void,
  ): Promise<WireAnswer> {
    this.register(call, run);
    failTest?.();
    const outcome = outcomeOf(answer, conversation.stream);
    // Only a wait reads the signal (the served port makes it on first read).
    if (outcome.latency) call.simulatedMs = outcome.latency;
    if (outcome.latency)
      await this.context.clock.sleep(outcome.latency, request.signal).catch((reason: unknown) => {
        // The client went away before the answer was due: nothing of it reached the client.
        if (outcome.kind === 'reply') call.response = outcome.reply;
        cutCall(call, { reason: 'aborted', delivered: 0 }, undefined);
        call.durationMs = performance.now() - call.startedAt;
        throw reason;
      });
    let response: WireAnswer;
    if (outcome.kind === 'drop') {
      call.error = outcome.error;
      response = { kind: 'drop' };
    } else if (outcome.kind === 'error') {
      call.error = outcome.error;
      response = plainAnswer(codec.encodeError(outcome.error), undefined, call);
    } else {
      call.response = outcome.reply;
      const ctx = {
        callIndex: call.index,
        created: CREATED,
        shaping: outcome.shaping,
        store: this.context.threads,
      };
      // The stream dialect is the model's choice (the fixture's, the test's, the file's or the option's, in turns).
      const dialect = this.context.model.dialectChooser.choose(
        outcome.fixture,
        codec.protocol,
        outcome.reply,
        conversation.stream,
        this.context.options.dialect,
      );
      if (dialect) call.dialect = dialect;
      if (outcome.streamError) call.streamError = outcome.streamError;
      const out = deliver(codec, outcome.reply, conversation, ctx, {
        ...(dialect && { dialect }),
        ...(outcome.streamError && { streamError: outcome.streamError }),
      });
      if (out.kind === 'stream') {
        const { events } = out.wire;
        // Told only when less than the whole stream reaches the client.
        const cut = (delivered: number, reason: CutReason, skipped?: number) => {
          const reached = events.slice(0, delivered);
          if (skipped !== undefined) reached.splice(skipped, 1);
          cutCall(
            call,
            { reason, delivered: reached.length, of: events.length },
            replyOfEvents(codec.reply, reached, conversation.model),
          );
        };
        response = streamAnswer(
          out.wire,
          outcome.shaping,
          this.context.clock,
          request,
          cut,
          outcome.streamError !== undefined,
        );
        run?.inflight?.push(response.plan);
        if (!response.plan.unpaced) call.simulatedMs = (outcome.latency ?? 0) + pacedFor(response.plan);
      } else {
        response = plainAnswer(out.wire, outcome.shaping, call);
        // Half a body: no client reads a reply out of it.
        if (outcome.shaping.malformed) cutCall(call, { reason: 'malformed', delivered: 0, of: 1 }, undefined);
      }
    }
    call.durationMs = performance.now() - call.startedAt;
    return response;
  }

  /**
   * A request the codec refuses to read (a body that is not JSON, a field of the wrong type): the
   * API's 400 goes back, and with the `parameters` rule on the test fails too, even if the agent
   * swallows the error.
   */
  private unreadable(
    protocol: string,
    url: string,
    encodeError: (error: NeutralError) => WireResponse,
    error: NeutralError,
  ): WireAnswer {
    this.refused(protocol, url, error);
    return plainAnswer(encodeError(error));
  }

  /** Fails the test for a request the API refuses before reading it, unless the `parameters` rule is off. */
  refused(protocol: string, url: string, error: NeutralError): void {
    const rules = enabledRules(this.context.model.contractSettings(this.context.options.contracts));
    if (!rules.has('parameters')) return;
    this.context.fail(
      'CONTRACT_BREACH',
      describeViolation(
        violation('parameters', error.param ?? 'body', error.message.trim(), error),
        `this ${protocol} request (POST ${url})`,
      ),
    );
  }

  /** An embedding request: answered from the embedding fixtures, logged in `understudy.model.embeddings`. */
  private async serveEmbedding(
    codec: EmbeddingCodec,
    target: RouteTarget,
    request: ModelRequest,
  ): Promise<WireAnswer> {
    const { model, threads } = this.context;
    // Embedding requests belong to the test, not to a run: only a late or concurrent one is refused.
    const late = this.context.admit(() => `an embedding request (POST ${request.url})`);
    if (late) return plainAnswer(codec.encodeError({ type: 'invalid_request_error', ...late }));
    const text = await readNoting(request);
    // The API's 400 goes back either way; with the rule on, the test fails too, as for a chat request.
    const refused = (error: NeutralError) => this.refused(codec.protocol, request.url, error);
    return plainAnswer(
      embeddingServer().serveEmbedding(
        codec,
        text,
        { path: target.path, query: target.query, store: threads },
        request.url,
        model.embeddingFixtures,
        (call) => model.embeddings.push(call),
        refused,
      ),
    );
  }

  private newCall(request: JudgedRequest): ModelCall {
    return {
      index: this.callCount++,
      provider: request.provider,
      protocol: request.protocol,
      url: request.url,
      request: request.body,
      conversation: request.conversation,
      unmatched: false,
      streamed: request.conversation.stream,
      startedAt: request.startedAt,
      durationMs: 0,
    };
  }

  /** The place in the file's call log of a call made elsewhere (a socket turn sent to the provider). */
  nextIndex(): number {
    return this.callCount++;
  }

  /** Every model call goes to the file's call log, the test's evidence and the run it belongs to. */
  register(call: ModelCall, run: RunRecorder | undefined): void {
    if (call.conversation.context === JUDGE_CONTEXT) call.judge = true;
    this.context.model.calls.push(call);
    this.context.evidence.noteCall(call);
    noteSessionCall(call);
    run?.calls.push(call);
  }
}

/** An admission as a claim of no run. */
function refusedOrNone(refused: ReturnType<FileContext['admit']>): ReturnType<FileContext['claim']> {
  return refused ? { refused } : { run: undefined };
}

/** The time a paced stream takes between its events, on the injectable clock. */
function pacedFor(plan: { readonly count: number; delay(at: number): number }): number {
  let total = 0;
  for (let at = 0; at < plan.count; at++) total += Math.max(0, plan.delay(at));
  return total;
}
