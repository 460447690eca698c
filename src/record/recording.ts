/**
 * The runtime's recording half: in record and live modes (or for a request no fixture
 * matches in record-missing mode) a model call goes to the real provider through the
 * environment's `upstream` (msw's bypass), the real response goes back to the agent —
 * streamed bodies are teed, so the agent reads as fast as the provider sends — and the
 * other copy is decoded into a neutral reply the call log, the run and the fixtures keep.
 *
 * It also checks cassette fixtures for staleness when they answer, notes which fixture
 * files answered (for `understudy fixtures check --unused`), and at the end of the file
 * writes the cassette of a record-mode run.
 */

import { offeredToolsOf } from '../contracts/offered-tools';
import {
  type Conversation,
  type ConversationStore,
  type MatchKeys,
  matchKeysOf,
  type NeutralError,
  type NeutralReply,
} from '../conversation';
import { type ErrorCode, isUnderstudyError } from '../errors';
import { suggestName } from '../file-format/suggest';
import { credentialsOf, noteSecret, secretsInUse } from '../files/secrets';
import { type Fixture, type RecordedRequest, type RedactHook, sourceOf } from '../fixtures/types';
import type { CutReason, ModelCall } from '../model/call';
import { cutCall, readEvents, wholeEventsOf } from '../model/delivered';
import type { MockModel } from '../model/mock-model';
import type { ResolvedOptions } from '../options';
import type { ProviderCodec, ReplyDecodeResult } from '../providers/codec';
import { derivedCallId } from '../providers/gemini/ids';
import { loadSseParserWith } from '../providers/sse';
import { ageInWords } from './age';
import type { BuildOptions, RecordedCall, ReplayStep } from './build';
import type { CassetteChange } from './cassette';
import { isRealKey, KEY_VARIABLES, placeholderNote, type UnderstudyMode } from './mode';
import { replaysCassette } from './paths';
import { PiiScanner } from './pii';
import { describeDrift, fingerprintOf } from './prompt-hash';
import { piiView, requestHashOf, requestOf } from './request';
import { type StaleNote, writeUsage } from './usage';

// Required on first use: replay without a cassette never needs the file loader, the fixture
// builder or the writer (js-yaml, ajv), and the package is evaluated in every test file.
const fixtureLoad = (): typeof import('../fixtures/load') => require('../fixtures/load');
const build = (): typeof import('./build') => require('./build');
const cassettes = (): typeof import('./cassette') => require('./cassette');
const requestDiff = (): typeof import('./request-diff') => require('./request-diff');

/** A model request on its way to the real provider (record and live modes). */
export interface UpstreamRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: string;
  signal?: AbortSignal;
}

/** How the recording reaches the real provider (the runner adapter's: for Jest, the environment's). */
export interface RecordingTransport {
  /** Sends a request past the interception (msw's `bypass`); absent outside the environment. */
  upstream?: (request: UpstreamRequest) => Promise<Response>;
  /** Loads a dependency with Node's own loader (eventsource-parser is an ES module). */
  hostRequire?: (id: 'eventsource-parser') => unknown;
}

/** What the recording reads of its test file (the file's context, src/run/context.ts). */
export interface RecordingContext {
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

/** What a fixture answered with, as the model server holds it before it goes on the wire. */
export interface ReplayedAnswer {
  entry: { fixture: Fixture };
  keys: MatchKeys;
  kind: 'reply' | 'error';
  reply?: NeutralReply;
}

/** What recording did in this file, for the reporter. */
export interface RecordingStats {
  /** Model calls recorded from the provider, per provider. */
  recorded: Record<string, number>;
  /** The cassette written, and what changed in it. */
  cassettes: CassetteChange[];
}

/** The wire request as the agent sent it, for forwarding. */
export interface WireRequest {
  method: string;
  headers: () => Headers;
  body: string;
}

export interface ForwardRequest {
  codec: ProviderCodec;
  conversation: Conversation;
  /** The parsed body. */
  request: unknown;
  url: string;
  startedAt: number;
  signal: AbortSignal | undefined;
  wire: WireRequest;
  /** The call's place in the file's call log. */
  index: number;
  /** Puts the call in the call log, the evidence and the current run. */
  register(call: ModelCall): void;
}

/** Headers that describe the upstream connection, not the body the agent gets. */
const HOP_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'];
/** Request headers fetch sets itself. */
const DROP_REQUEST_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding']);

function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The body as text; a binary stream (`binary`) as one `latin1` character per byte, which keeps every byte. */
async function readAll(stream: ReadableStream<Uint8Array>, binary = false): Promise<string> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += binary ? Buffer.from(value).toString('latin1') : decoder.decode(value, { stream: true });
  }
  return binary ? text : text + decoder.decode();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A recorded reply as the run and the cassette keep it: the requested model when the provider
 * names none, the reply id a header carried, and, for calls the provider sent without an id
 * (Gemini), the id the codec derives for them when the request that answers them comes back.
 */
function withIdentity(
  reply: NeutralReply,
  conversation: Conversation,
  replyId: string | undefined,
): NeutralReply {
  const out: NeutralReply = reply.model ? { ...reply } : { ...reply, model: conversation.model };
  if (replyId !== undefined && out.wire?.id === undefined) out.wire = { ...out.wire, id: replyId };
  if (out.toolCalls.some((c) => c.anonymous)) {
    const { turnIndex } = matchKeysOf(conversation);
    out.toolCalls = out.toolCalls.map((c, i) =>
      c.anonymous ? { ...c, id: derivedCallId(turnIndex, i) } : c,
    );
  }
  return out;
}

/**
 * The provider's stream as the agent reads it (one read, one chunk pulled from the provider),
 * keeping what reached the agent: if it stops short (the agent gives up, the provider or the
 * connection cuts it), `onCut` gets the chunks that did, once.
 */
class AgentTap {
  readonly stream: ReadableStream<Uint8Array>;
  private readonly chunks: Uint8Array[] = [];
  private ended = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    /** The agent's request: aborted, the provider's stream fails because the agent gave up. */
    private readonly signal: AbortSignal | undefined,
    private readonly onCut: (chunks: Uint8Array[], reason: CutReason) => void,
  ) {
    const reader = body.getReader();
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (error) {
            this.cut(this.signal?.aborted ? 'aborted' : 'disconnected');
            controller.error(error);
            return;
          }
          if (next.done) {
            this.ended = true;
            controller.close();
            return;
          }
          this.chunks.push(next.value);
          controller.enqueue(next.value);
        },
        cancel: (reason) => {
          this.cut('aborted');
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The agent got no more than it has: told once, and never after the stream ended whole. */
  cut(reason: CutReason): void {
    if (this.ended) return;
    this.ended = true;
    this.onCut(this.chunks, reason);
  }
}

export class Recording {
  /** Every model call the provider answered in this file, in call order (record-mode cassettes). */
  private readonly recorded: RecordedCall[] = [];
  private readonly byCall = new WeakMap<ModelCall, RecordedCall>();
  /** Captures still reading a teed stream. */
  private readonly pending = new Set<Promise<void>>();
  private readonly warned = new WeakMap<Fixture, Set<string>>();
  /** Fixture file → JSON paths of its fixtures that answered a request, for the usage record. */
  private readonly used = new Map<string, Set<string>>();
  /** Stale cassette fixtures that answered, for the usage record (`understudy record --stale`). */
  private readonly stale = new Map<string, StaleNote>();
  private currentTest: string | undefined;
  /** Tests that started, and those that ran to the end (a test `-t` filters out only starts). */
  private readonly started = new Set<string>();
  private readonly finished = new Set<string>();
  /** The file's replay, in order: what the cassette about to be written must replay. */
  private readonly steps: ReplayStep[] = [];
  private readonly recordedPer: Record<string, number> = {};
  private readonly written: CassetteChange[] = [];
  /** Each request with its personal data as placeholders, numbered once per request. */
  private readonly views = new WeakMap<Conversation, { conversation: Conversation; pii: PiiScanner }>();

  constructor(private readonly host: RecordingContext) {
    const { mode } = host.options;
    // The cassette is written after the last test, where Jest's CommonJS runtime refuses to load
    // a module ("outside of the scope of the test code"): what writing needs is loaded now.
    if (mode === 'record' || mode === 'record-missing') {
      build();
      requestDiff();
      cassettes().prepareCassetteWriter();
    }
    // Streamed replies are read back with eventsource-parser, an ES module: loaded outside the
    // test file where the environment offers that (in any mode: a harness can record too).
    const hostRequire = host.services.hostRequire;
    if (hostRequire) loadSseParserWith(() => hostRequire('eventsource-parser'));
    if ((host.options.pii ?? []).length > 0)
      host.model.viewRequests((conversation) => this.viewOf(conversation).conversation);
    // The cassette replays (and record-missing appends to it); record overwrites it, live ignores it.
    if (replaysCassette(host.options))
      host.model.register(fixtureLoad().loadFixtures(host.options.cassette), 'config');
  }

  get fileMode(): UnderstudyMode {
    return this.host.options.mode;
  }

  /** The mode for a request: a run's own (a recording harness) wins over the file's. */
  modeFor(run: { mode?: UnderstudyMode } | undefined): UnderstudyMode {
    return run?.mode ?? this.host.options.mode;
  }

  testStarted(name: string): void {
    this.currentTest = name;
    this.started.add(name);
  }

  testFinished(): void {
    if (this.currentTest !== undefined) this.finished.add(this.currentTest);
    this.currentTest = undefined;
  }

  /** The recording of a call the provider answered, for `getRecordedFixtures()`. */
  recordedOf(call: ModelCall): RecordedCall | undefined {
    return this.byCall.get(call);
  }

  /** Resolves when every capture started so far has its reply. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** The request as matching and the cassette see it: personal data as placeholders (when asked). */
  private viewOf(conversation: Conversation): { conversation: Conversation; pii: PiiScanner } {
    let view = this.views.get(conversation);
    if (!view) {
      const pii = new PiiScanner(this.host.options.pii ?? []);
      view = { conversation: piiView(conversation, pii), pii };
      this.views.set(conversation, view);
    }
    return view;
  }

  /** The recorded request of a live one, built as recording builds it. */
  private requestOf(
    conversation: Conversation,
    body: unknown,
  ): {
    request: RecordedRequest;
    requestHash: string;
    toolsHash: string;
  } {
    const view = this.viewOf(conversation).conversation;
    const normalize = (t: string) => this.host.model.normalizeText(t);
    const { toolsHash } = fingerprintOf(view, normalize);
    const request = requestOf(view, body, { normalize, secrets: secretsInUse() });
    return { request, requestHash: requestHashOf(request, toolsHash), toolsHash };
  }

  /**
   * A fixture answered: note its file for the usage record, fail a recorded answer that
   * calls a tool the request no longer offers, check a cassette fixture for staleness (what
   * changed in the request, its age), and put personal data back where the answer quotes it.
   */
  replayed(answer: ReplayedAnswer, conversation: Conversation, body: unknown, what: () => string): void {
    const { fixture } = answer.entry;
    const source = sourceOf(fixture);
    if (source?.file) {
      let paths = this.used.get(source.file);
      if (!paths) {
        paths = new Set();
        this.used.set(source.file, paths);
      }
      if (source.path) paths.add(source.path);
      if (this.host.options.mode === 'record-missing' && source.file === this.host.options.cassette)
        this.steps.push({
          ...(this.currentTest !== undefined && { test: this.currentTest }),
          keys: answer.keys,
          answeredBy: fixture,
        });
    }
    if (answer.reply && (this.host.options.pii ?? []).length > 0)
      answer.reply = this.restored(answer.reply, conversation);
    const meta = fixture.metadata;
    if (!meta || (typeof meta.promptHash !== 'string' && meta.request === undefined)) return;
    const name =
      (fixture.id !== undefined ? `fixture "${fixture.id}"` : 'fixture') +
      (source?.file ? ` (${source.file} ${source.path ?? ''})`.replace(/ \)$/, ')') : '') +
      (meta.test ? ` recorded in test "${meta.test}"` : '');

    // Anthropic's client tools with fixed names (bash, the text editor) have no schema in the conversation.
    const fixed =
      typeof body === 'object' && body !== null
        ? (offeredToolsOf(conversation.protocol, body as Record<string, unknown>)?.client ?? [])
        : [];
    const offered = [...new Set([...conversation.tools.map((t) => t.name), ...fixed])];
    const gone = (answer.reply?.toolCalls ?? []).find((c) => !offered.includes(c.name));
    if (gone) {
      const renamed = suggestName(gone.name, offered);
      this.host.fail(
        'CASSETTE_TOOL_MISSING',
        `jest-understudy: ${name} answered ${what()} with a call to ${JSON.stringify(gone.name)}, but the request ` +
          `offers ${offered.length === 0 ? 'no tools' : `only ${offered.map((t) => JSON.stringify(t)).join(', ')}`}` +
          `${renamed ? ` (renamed to ${JSON.stringify(renamed)}?)` : ''}: ` +
          'the tool was renamed or removed since the recording, and a model cannot call a tool it was not given, so ' +
          'this answer cannot be right. Record it again (`understudy record --stale`, or `understudy record -- <test file> -t "<test name>"`).',
      );
    }

    const reasons: string[] = [];
    if (meta.request) {
      const live = this.requestOf(conversation, body);
      if (live.requestHash !== meta.requestHash) {
        const drift = requestDiff().firstDifference(meta.request, live.request, {
          recorded: meta.toolsHash,
          live: live.toolsHash,
        });
        if (drift) reasons.push(`${drift} since it was recorded`);
      }
    } else if (typeof meta.promptHash === 'string') {
      const now = fingerprintOf(conversation, (t) => this.host.model.normalizeText(t));
      const changes = describeDrift(meta, now);
      if (changes.length > 0) reasons.push(`${changes.join(' and ')} since it was recorded`);
    }
    const maxAge = this.host.options.cassetteMaxAge;
    const at = typeof meta.recordedAt === 'string' ? Date.parse(meta.recordedAt) : Number.NaN;
    if (maxAge && Number.isFinite(at) && this.host.options.startedAt - at > maxAge.ms)
      reasons.push(
        `it was recorded ${ageInWords(this.host.options.startedAt - at)} ago (${meta.recordedAt}), longer ago than cassetteMaxAge ${maxAge.text}`,
      );
    if (reasons.length === 0) return;
    const reason = reasons.join(', and ');
    const strict = this.host.options.strictCassettes;
    const message =
      `jest-understudy: stale cassette: ${name} answered ${what()}, but ${reason}. Record it again ` +
      '(`understudy record --stale`, or `understudy record -- <test file> -t "<test name>"`), ' +
      (strict ? 'or turn strictCassettes off to only warn.' : 'or set strictCassettes to fail on this.');
    if (source?.file) {
      this.host.evidence?.noteStaleCassette?.(source.file);
      const key = `${source.file}\u0000${source.path ?? ''}`;
      if (!this.stale.has(key))
        this.stale.set(key, {
          file: source.file,
          ...(source.path && { path: source.path }),
          ...(meta.test && { recordedIn: meta.test }),
          ...(this.currentTest && { test: this.currentTest }),
          reason,
        });
    }
    if (strict) this.host.fail('CASSETTE_STALE', message);
    else {
      const seen = this.warned.get(fixture) ?? new Set<string>();
      if (!seen.has(reason)) {
        seen.add(reason);
        this.warned.set(fixture, seen);
        console.warn(message);
      }
    }
  }

  /** A recorded answer with the live request's personal data where the recording has its placeholders. */
  private restored(reply: NeutralReply, conversation: Conversation): NeutralReply {
    const { pii } = this.viewOf(conversation);
    return {
      ...reply,
      content: reply.content === null ? null : pii.restore(reply.content),
      ...(reply.reasoning !== undefined && { reasoning: pii.restore(reply.reasoning) }),
      toolCalls: reply.toolCalls.map((c) => ({ ...c, arguments: pii.restore(c.arguments) })),
    };
  }

  /** What recording did in this file, for the reporter. */
  stats(): RecordingStats {
    return { recorded: { ...this.recordedPer }, cassettes: [...this.written] };
  }

  /** Sends the call to the provider and hands its real response back to the agent. */
  async forward(f: ForwardRequest): Promise<Response | 'drop'> {
    const { codec, conversation, url, startedAt, wire } = f;
    const mode = this.modeFor(this.host.runs.getStore());
    const call: ModelCall = {
      index: f.index,
      provider: codec.provider,
      protocol: codec.protocol,
      url,
      request: f.request,
      conversation,
      unmatched: false,
      streamed: conversation.stream,
      startedAt,
      durationMs: 0,
      recorded: true,
    };
    const view = this.viewOf(conversation);
    const rec: RecordedCall = {
      index: f.index,
      protocol: codec.protocol,
      conversation,
      keys: this.host.model.keysOf(conversation),
      fingerprint: fingerprintOf(view.conversation, (t) => this.host.model.normalizeText(t)),
      pii: view.pii,
      ...(this.currentTest ? { test: this.currentTest } : {}),
      startedAt,
    };
    f.register(call);
    this.byCall.set(call, rec);
    if (mode !== 'live') {
      this.recorded.push(rec);
      this.steps.push({ ...(rec.test !== undefined && { test: rec.test }), keys: rec.keys, call: rec });
    }

    const failWith = (code: ErrorCode, status: number, message: string) => {
      this.host.fail(code, message);
      call.error = { status, type: status === 401 ? 'authentication_error' : 'api_error', message };
      call.durationMs = performance.now() - startedAt;
      const wireError = codec.encodeError(call.error);
      return new Response(wireError.body, { status: wireError.status, headers: wireError.headers });
    };

    const headers = new Headers(wire.headers());
    const keys = credentialsOf(headers, url);
    const real = keys.filter((k) => isRealKey(k));
    if (real.length === 0) {
      const names = KEY_VARIABLES[codec.provider];
      return failWith(
        'RECORD_KEY_MISSING',
        401,
        `jest-understudy: ${mode} mode sends ${wire.method} ${url} to the real provider, which needs your ` +
          `${codec.provider} key, but the request carries ${keys.length === 0 ? 'no key' : "only jest-understudy's replay placeholder key"}. ` +
          `Set ${names.join(' or ')} (replay fills it with a placeholder; record and live modes need the real one).` +
          placeholderNote(process.env),
      );
    }
    for (const k of real) noteSecret(k);
    // Built once the key is noted, so the recorded request is scrubbed of it.
    const built = this.requestOf(conversation, f.request);
    rec.request = built.request;
    rec.requestHash = built.requestHash;
    const { services } = this.host;
    if (!services.upstream) {
      return failWith(
        'RECORD_UNAVAILABLE',
        502,
        `jest-understudy: ${mode} mode needs the jest-understudy environment to reach the provider, and this one offers no upstream.`,
      );
    }

    const forwarded: Array<[string, string]> = [];
    headers.forEach((value, name) => {
      if (!DROP_REQUEST_HEADERS.has(name)) forwarded.push([name, value]);
    });
    let upstream: Response;
    try {
      upstream = await services.upstream({
        url,
        method: wire.method,
        headers: forwarded,
        body: wire.body,
        ...(f.signal ? { signal: f.signal } : {}),
      });
    } catch (error) {
      // As a real connection failure: the agent's SDK sees it; nothing is recorded.
      call.error = {
        status: 0,
        type: 'connection_error',
        message: String((error as Error)?.message ?? error),
      };
      call.durationMs = performance.now() - startedAt;
      throw error;
    }

    const out = new Headers(upstream.headers);
    for (const h of HOP_HEADERS) out.delete(h);
    const retryAfter = retryAfterOf(upstream.headers);
    const status = upstream.status;
    const type = upstream.headers.get('content-type') ?? '';
    const binary = codec.reply?.binaryStream !== undefined && type.includes(codec.reply.binaryStream);
    const streamed = type.includes('text/event-stream') || binary;
    const idHeader = codec.reply?.idHeader;
    const replyId = idHeader ? (upstream.headers.get(idHeader) ?? undefined) : undefined;
    const capture = (text: string) =>
      this.capture(codec, call, rec, text, { status, streamed, retryAfter, replyId });

    if (!streamed || status >= 400 || !upstream.body) {
      const text = await upstream.text();
      capture(text);
      return new Response(text, { status, statusText: upstream.statusText, headers: out });
    }
    const [toAgent, toCapture] = upstream.body.tee();
    // What reaches the agent is the call's evidence when the stream stops short of its end.
    const tap = new AgentTap(toAgent, f.signal, (chunks, reason) => {
      const { text, events } = wholeEventsOf(chunks, binary);
      const read = readEvents(codec.reply, text === '' ? [] : [text], conversation.model);
      // Stopped after the terminal event (a client that does not wait for the body's end): whole.
      if (read?.complete) return;
      cutCall(call, { reason, delivered: events }, read?.reply);
    });
    const done = readAll(toCapture, binary).then(capture, (error: unknown) => {
      call.durationMs = performance.now() - startedAt;
      tap.cut(f.signal?.aborted ? 'aborted' : 'disconnected');
      // Live mode records nothing: the cut is the run's evidence, not a recording that failed.
      if (mode !== 'live')
        this.host.fail(
          'RECORD_INCOMPLETE',
          `jest-understudy: the ${codec.protocol} stream from ${url} failed before it ended (${String((error as Error)?.message ?? error)}); the call was not recorded.`,
        );
    });
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
    this.host.runs.getStore()?.pending?.push(done);
    return new Response(tap.stream, { status, statusText: upstream.statusText, headers: out });
  }

  private capture(
    codec: ProviderCodec,
    call: ModelCall,
    rec: RecordedCall,
    text: string,
    response: { status: number; streamed: boolean; retryAfter: number | undefined; replyId?: string },
  ): void {
    const { status, streamed, retryAfter } = response;
    call.durationMs = performance.now() - call.startedAt;
    rec.endedAt = performance.now();
    const decoder = codec.reply;
    if (!decoder) {
      this.host.fail(
        'RECORD_UNSUPPORTED',
        `jest-understudy: cannot record ${codec.protocol} responses yet; the call was not recorded.`,
      );
      return;
    }
    let result: ReplyDecodeResult;
    if (status >= 400)
      result = { ok: false, error: decoder.decodeError(status, parseJson(text), retryAfter) };
    else if (streamed) result = decoder.decodeStream(text);
    else result = decoder.decodeReply(parseJson(text));
    if (!result.ok) {
      const error: NeutralError = result.error;
      call.error = error;
      rec.error = error;
      this.countRecorded(codec.provider, call);
      return;
    }
    const reply: NeutralReply = withIdentity(result.reply, call.conversation, response.replyId);
    if (!result.complete) {
      // The provider's stream ended before its last event: what it sent is all the agent got.
      const binary = codec.reply?.binaryStream !== undefined;
      const events = wholeEventsOf([Buffer.from(text, binary ? 'latin1' : 'utf8')], binary).events;
      if (!call.cut) cutCall(call, { reason: 'disconnected', delivered: events, of: events }, reply);
      if (this.modeFor(this.host.runs.getStore()) !== 'live')
        this.host.fail(
          'RECORD_INCOMPLETE',
          `jest-understudy: the ${codec.protocol} stream for model call #${call.index} ended before its last event ` +
            '(the provider or the connection cut it); the call was not recorded. Record again.',
        );
      return;
    }
    // The agent stopped reading first: it got less than the provider sent.
    if (call.cut) call.whole = reply;
    else call.response = reply;
    rec.reply = reply;
    this.countRecorded(codec.provider, call);
    if (result.raw !== undefined) decoder.remember?.(result.raw, call.conversation, this.host.threads);
  }

  private countRecorded(provider: string, call: ModelCall): void {
    const rec = this.byCall.get(call);
    if (!rec || !this.recorded.includes(rec)) return;
    this.recordedPer[provider] = (this.recordedPer[provider] ?? 0) + 1;
  }

  private buildOptions(where: string, redact?: RedactHook, redactName?: string): BuildOptions {
    const hook = redact ?? this.host.model.redactor;
    return {
      where,
      strictTurnIndex: this.host.options.strictTurnIndex,
      secrets: secretsInUse(),
      ...(hook && { redact: hook, redactName: redactName ?? 'understudy.model.redact' }),
    };
  }

  /** Fixtures for recorded calls (harness.getRecordedFixtures). */
  fixturesOf(calls: readonly RecordedCall[], where: string, redact?: RedactHook): Fixture[] {
    return build().fixturesFromCalls(
      calls,
      this.buildOptions(where, redact, redact ? 'the harness redact option' : undefined),
    );
  }

  /** The file is done: write the record-mode cassette and the usage record. Returns failures. */
  async fileFinished(failedTests: number): Promise<Array<{ code: ErrorCode; message: string }>> {
    await this.settled();
    const failures: Array<{ code: ErrorCode; message: string }> = [];
    const { mode, cassette, usageFile, testPath } = this.host.options;
    const recording = mode === 'record' || mode === 'record-missing';
    const ranRecorded = mode === 'record' && [...this.finished].length > 0;
    if (recording && (this.recorded.length > 0 || ranRecorded)) {
      if (failedTests > 0) {
        failures.push({
          code: 'RECORD_INCOMPLETE',
          message:
            `jest-understudy: ${mode} mode did not write ${cassette}: ${failedTests} test${failedTests === 1 ? '' : 's'} ` +
            'failed, and a cassette of a failing run would replay the failure. Fix the test or the agent and record again.',
        });
      } else {
        try {
          const options = this.buildOptions(`${mode} mode (${cassette})`);
          const built = build().buildFixtures(this.recorded, options);
          const existing = cassettes().readCassette(cassette);
          const plan = {
            mode,
            ran: this.finished,
            fullRun: [...this.started].every((t) => this.finished.has(t)),
          };
          const { fixtures, counts } = cassettes().mergeCassette(existing, built.fixtures, plan);
          build().checkReplay(fixtures, this.steps, built, options);
          const changed = this.recorded.length > 0 || counts.removed > 0;
          if (changed) this.written.push(cassettes().writeCassette(cassette, fixtures, counts, mode));
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          failures.push({
            code: isUnderstudyError(error) ? error.code : 'FILE_FINISH_FAILED',
            message:
              `jest-understudy: ${mode} mode did not write ${cassette}; this file's tests ran against the ` +
              `real provider, but nothing was recorded: ${reason}`,
          });
        }
      }
    }
    if (usageFile && mode !== 'record' && mode !== 'live') {
      try {
        writeUsage(usageFile, testPath, this.used, [...this.stale.values()]);
      } catch {
        // Usage notes are a convenience for `fixtures check --unused`; a read-only tree must not fail tests.
      }
    }
    return failures;
  }
}
