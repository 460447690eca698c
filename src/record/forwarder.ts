/**
 * The recording's adapter: in record and live modes (or for a request no fixture matches in
 * record-missing mode) a model call goes to the real provider through the environment's
 * `upstream` (msw's bypass), the real response goes back to the agent (streamed bodies are
 * teed, so the agent reads as fast as the provider sends) and the other copy is decoded into a
 * neutral reply the call log, the run and the cassette keep. Replay never loads this module.
 */
import {
  type Conversation,
  type ConversationStore,
  JUDGE_HEADER,
  matchKeysOf,
  type NeutralError,
  type NeutralReply,
  type ProviderId,
} from '../conversation';
import type { ErrorCode } from '../errors';
import { credentialsOf, noteSecret } from '../files/secrets';
import type { CutReason, ModelCall } from '../model/call';
import { cutCall, readEvents, type StreamFraming, wholeEventsOf } from '../model/delivered';
import type { MockModel } from '../model/mock-model';
import type { ProviderCodec, ReplyDecodeResult } from '../providers/codec';
import { derivedCallId } from '../providers/gemini/ids';
import type { RecordedCall } from './build';
import type { CassetteWriter } from './cassette-writer';
import { isRealKey, KEY_VARIABLES, placeholderNote, type UnderstudyMode } from './mode';
import { fingerprintOf } from './prompt-hash';
import type { RequestViews } from './request-views';

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

/** What every forwarded call starts from, whatever carries it. */
interface CallStart {
  protocol: string;
  provider: ProviderId;
  conversation: Conversation;
  /** The parsed body (for a socket turn: the session's settings and the turn's input). */
  request: unknown;
  url: string;
  startedAt: number;
  /** The call's place in the file's call log. */
  index: number;
  /** Puts the call in the call log, the evidence and the current run. */
  register(call: ModelCall): void;
}

/** One turn of a socket session, on its way to the real provider. */
export interface ForwardTurn extends CallStart {
  /** The upgrade's headers (the client's credentials). */
  headers: Headers;
  /** Credentials the client sent elsewhere (a subprotocol). */
  keys?: string[];
  /** `sha256:` of the audio the turn's user message was heard from (a spoken turn). */
  heard?: string;
  /** Sends the turn over the connection's upstream session and reads the reply back. */
  exchange(): Promise<ReplyDecodeResult>;
}

/** The provider's answer to a socket turn, for the session to serve. */
export type ForwardedTurn =
  | {
      kind: 'reply';
      reply: NeutralReply;
      cut(
        reason: CutReason,
        reached: NeutralReply | undefined,
        events: { delivered: number; of: number },
      ): void;
    }
  | { kind: 'error' | 'drop'; error: NeutralError };

/** Headers that describe the upstream connection, not the body the agent gets. */
const HOP_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'];
/** Request headers fetch sets itself. */
const DROP_REQUEST_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  // The package's own marker of a judge's call, for the mock model only.
  JUDGE_HEADER,
]);

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

/** What the forwarder needs of the file: its model, conversations, current run and current test. */
export interface ForwarderDeps {
  readonly model: MockModel;
  readonly threads: ConversationStore;
  fail(code: ErrorCode, message: string): void;
  /** The mode of the current call (a recording harness's run wins over the file's). */
  modeNow(): UnderstudyMode;
  /** The current run's captures to wait for (see src/run/scope.ts), when a run is current. */
  runPending(): Promise<unknown>[] | undefined;
  currentTest(): string | undefined;
  /** The provider answered the call (its reply or error is on it). */
  answered?(call: ModelCall): void;
}

/**
 * Why `what` cannot go to the provider in `mode` (its key is missing, or only the replay
 * placeholder came), or undefined: then each real key the client sent is noted as a secret, so
 * nothing written afterwards holds it. A provider that takes no key (a local Ollama) needs none.
 */
export function missingKey(
  mode: string,
  provider: ProviderId,
  keys: readonly string[],
  what: string,
): string | undefined {
  const real = keys.filter((k) => isRealKey(k));
  const names = KEY_VARIABLES[provider];
  if (real.length === 0 && names.length > 0)
    return (
      `jest-understudy: ${mode} mode sends ${what} to the real provider, which needs your ` +
      `${provider} key, but the ${keys.length === 0 ? 'client sent no key' : "client sent only jest-understudy's replay placeholder key"}. ` +
      `Set ${names.join(' or ')} (replay fills it with a placeholder; record and live modes need the real one).` +
      placeholderNote(process.env)
    );
  for (const k of real) noteSecret(k);
  return undefined;
}

export class Forwarder {
  private readonly byCall = new WeakMap<ModelCall, RecordedCall>();
  /** Captures still reading a teed stream. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: ForwarderDeps,
    private readonly transport: RecordingTransport,
    private readonly views: RequestViews,
    private readonly writer: CassetteWriter,
  ) {}

  /** The recording of a call the provider answered, for `getRecordedFixtures()`. */
  recordedOf(call: ModelCall): RecordedCall | undefined {
    return this.byCall.get(call);
  }

  /** Resolves when every capture started so far has its reply. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * The call goes in the call log (and, but in live mode, the cassette), and the key it carries is
   * checked and noted so that everything written is scrubbed of it: the part of forwarding every
   * carrier shares. Returns why the provider cannot be asked (the key is missing), if it cannot.
   */
  private begin(
    f: CallStart,
    keys: string[],
    what: string,
  ): { call: ModelCall; rec: RecordedCall; missing?: string } {
    const { protocol, provider, conversation, url, startedAt } = f;
    const mode = this.deps.modeNow();
    const call: ModelCall = {
      index: f.index,
      provider,
      protocol,
      url,
      request: f.request,
      conversation,
      unmatched: false,
      streamed: conversation.stream,
      startedAt,
      durationMs: 0,
      recorded: true,
    };
    const view = this.views.viewOf(conversation);
    const test = this.deps.currentTest();
    const rec: RecordedCall = {
      index: f.index,
      protocol,
      conversation,
      keys: this.deps.model.keysOf(conversation),
      fingerprint: fingerprintOf(view.conversation, (t) => this.deps.model.normalizeText(t)),
      pii: view.pii,
      ...(test ? { test } : {}),
      startedAt,
    };
    f.register(call);
    this.byCall.set(call, rec);
    if (mode !== 'live') this.writer.add(rec);
    const missing = missingKey(mode, provider, keys, what);
    if (missing) return { call, rec, missing };
    // Built once the key is noted, so the recorded request is scrubbed of it.
    const built = this.views.recordedRequestOf(conversation, f.request);
    rec.request = built.request;
    rec.requestHash = built.requestHash;
    return { call, rec };
  }

  /** Sends the call to the provider and hands its real response back to the agent. */
  async forward(f: ForwardRequest): Promise<Response | 'drop'> {
    const { codec, conversation, url, startedAt, wire } = f;
    const mode = this.deps.modeNow();
    const headers = new Headers(wire.headers());
    const { call, rec, missing } = this.begin(
      { ...f, protocol: codec.protocol, provider: codec.provider },
      credentialsOf(headers, url),
      `${wire.method} ${url}`,
    );

    const failWith = (code: ErrorCode, status: number, message: string) => {
      this.deps.fail(code, message);
      call.error = { status, type: status === 401 ? 'authentication_error' : 'api_error', message };
      call.durationMs = performance.now() - startedAt;
      const wireError = codec.encodeError(call.error);
      return new Response(wireError.body, { status: wireError.status, headers: wireError.headers });
    };

    if (missing) return failWith('RECORD_KEY_MISSING', 401, missing);
    if (!this.transport.upstream) {
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
      upstream = await this.transport.upstream({
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
    const lines = codec.reply?.lineStream !== undefined && type.includes(codec.reply.lineStream);
    const framing: StreamFraming = binary ? 'binary' : lines ? 'lines' : 'sse';
    const streamed = type.includes('text/event-stream') || binary || lines;
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
      const { text, events } = wholeEventsOf(chunks, framing);
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
        this.deps.fail(
          'RECORD_INCOMPLETE',
          `jest-understudy: the ${codec.protocol} stream from ${url} failed before it ended (${String((error as Error)?.message ?? error)}); the call was not recorded.`,
        );
    });
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
    this.deps.runPending()?.push(done);
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
    const decoder = codec.reply;
    if (!decoder) {
      call.durationMs = performance.now() - call.startedAt;
      this.deps.fail(
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
    const binary = codec.reply?.binaryStream !== undefined;
    const framing: StreamFraming = binary ? 'binary' : codec.reply?.lineStream ? 'lines' : 'sse';
    const reply = this.settle(
      call,
      rec,
      result,
      response.replyId,
      () => wholeEventsOf([Buffer.from(text, binary ? 'latin1' : 'utf8')], framing).events,
    );
    if (reply && result.ok && result.raw !== undefined)
      decoder.remember?.(result.raw, call.conversation, this.deps.threads);
  }

  /**
   * The provider's decoded answer, on the call and its recording: an error is recorded as one; a
   * reply that ended before its last event is the call's evidence, not a recording (the test fails
   * in a record mode). Returns the reply when it is whole.
   */
  private settle(
    call: ModelCall,
    rec: RecordedCall,
    result: ReplyDecodeResult,
    replyId: string | undefined,
    eventsOf: () => number,
  ): NeutralReply | undefined {
    call.durationMs = performance.now() - call.startedAt;
    rec.endedAt = performance.now();
    if (!result.ok) {
      const error: NeutralError = result.error;
      call.error = error;
      rec.error = error;
      this.writer.counted(call.provider, rec);
      this.deps.answered?.(call);
      return undefined;
    }
    const reply: NeutralReply = withIdentity(result.reply, call.conversation, replyId);
    this.deps.answered?.({ ...call, response: reply });
    if (!result.complete) {
      // The provider's stream ended before its last event: what it sent is all the agent got.
      const events = eventsOf();
      if (!call.cut) cutCall(call, { reason: 'disconnected', delivered: events, of: events }, reply);
      if (this.deps.modeNow() !== 'live')
        this.deps.fail(
          'RECORD_INCOMPLETE',
          `jest-understudy: the ${call.protocol} stream for model call #${call.index} ended before its last event ` +
            '(the provider or the connection cut it); the call was not recorded. Record again.',
        );
      return undefined;
    }
    // The agent stopped reading first: it got less than the provider sent.
    if (call.cut) call.whole = reply;
    else call.response = reply;
    rec.reply = reply;
    this.writer.counted(call.provider, rec);
    return reply;
  }

  /**
   * One turn of a socket session goes to the provider over the connection's own upstream session
   * (`exchange`): recorded, scrubbed and logged as an HTTP call is. The reply comes back for the
   * session to serve; `cut` tells the call how much of it reached the client.
   */
  async forwardTurn(t: ForwardTurn): Promise<ForwardedTurn> {
    const keys = [...credentialsOf(t.headers, t.url), ...(t.keys ?? [])];
    const { call, rec, missing } = this.begin(t, keys, `${t.protocol} turns of ${t.url.split('?')[0]}`);
    if (t.heard) rec.heard = t.heard;
    const failed = (code: ErrorCode, error: NeutralError, message: string): ForwardedTurn => {
      this.deps.fail(code, message);
      call.error = error;
      call.durationMs = performance.now() - t.startedAt;
      return { kind: 'error', error };
    };
    if (missing)
      return failed(
        'RECORD_KEY_MISSING',
        { status: 401, type: 'authentication_error', message: missing },
        missing,
      );
    let result: ReplyDecodeResult;
    try {
      result = await t.exchange();
    } catch (error) {
      const message = `jest-understudy: ${this.deps.modeNow()} mode could not send this ${t.protocol} turn (${t.url.split('?')[0]}) to the provider: ${String((error as Error)?.message ?? error)}`;
      // A turn the relay refuses to send says which code (RECORD_UNSUPPORTED); any other failure is the way there.
      const code = (error as { code?: unknown })?.code;
      return failed(
        typeof code === 'string' && code.startsWith('RECORD_') ? (code as ErrorCode) : 'RECORD_UNAVAILABLE',
        { status: 502, type: 'api_error', message },
        message,
      );
    }
    const reply = this.settle(call, rec, result, undefined, () => 0);
    if (!result.ok) return { kind: 'error', error: result.error };
    // The provider's turn ended short (a cut socket, a cancelled response): so does the client's.
    if (!reply)
      return {
        kind: 'drop',
        error: {
          status: 0,
          type: 'connection_dropped',
          message: 'the provider ended the turn before its last event',
        },
      };
    return {
      kind: 'reply',
      reply,
      cut: (reason, reached, events) => cutCall(call, { reason, ...events }, reached),
    };
  }
}
