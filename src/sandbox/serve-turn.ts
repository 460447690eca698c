/**
 * One model turn of a socket session (OpenAI Realtime, Gemini Live), answered as an HTTP call is:
 * the request contracts, the fixtures, chaos, the file's call log, the run's evidence and spans,
 * unmatched calls failing the test. Only the wire differs: the protocol puts the neutral outcome
 * on its socket itself.
 */
import { type Conversation, matchKeysOf, type NeutralError, type ProviderId } from '../conversation';
import type { ErrorCode } from '../errors/codes';
import { cutCall } from '../model/delivered';
import type { RunRecorder } from '../run/recorder';
import type {
  SocketCall,
  SocketServices,
  SpokenTurn,
  TurnOutcome,
  UpstreamConnector,
  UpstreamRelay,
} from '../sockets/protocol';
import { type ModelRequest, type ModelServer, outcomeOf } from './serve-model';

/** The connection a socket protocol serves, as its turns are logged. */
export interface TurnSocket {
  /** The protocol's name, as `ModelCall.protocol` (`openai.realtime`). */
  protocol: string;
  provider: ProviderId;
  /** The URL the client opened. */
  url: string;
  /** Path below the provider's base URL. */
  path: string;
  /** What the ids of the fixtures' tool calls start with (`call_`). */
  toolCallIdPrefix?: string;
  /** Record and live modes: how the connection reaches the provider (absent: its protocol cannot). */
  upstream?: TurnUpstream;
}

/** A connection's way to the real provider. */
export interface TurnUpstream {
  /** The upgrade's headers (the client's credentials). */
  headers: Headers;
  /** The connection's session with the provider, opened by its first forwarded turn. */
  relay(connect: UpstreamConnector): UpstreamRelay;
}

/** What a socket session is refused with when its call belongs to no run, or cannot be recorded. */
const refusal = (message: string, status = 400): TurnOutcome => ({
  kind: 'error',
  error: { status, type: 'invalid_request_error', message },
});

/** The file's model, as one socket connection's protocol reaches it. */
export function socketServices(server: ModelServer, socket: TurnSocket): Omit<SocketServices, 'call'> {
  const { context } = server;
  const what = `this ${socket.protocol} turn (${socket.url})`;
  /** The last spoken turn the provider heard: the turns that answer it are bound to its audio. */
  let spoken: { text: string; digest: string } | undefined;
  return {
    refused: (error: NeutralError) => server.refused(socket.protocol, socket.url, error),
    answer: answerTurn,
    heard: (conversation, audio) => context.model.heard(conversation, audio),
    transcribe,
    sleep: (ms, signal) => context.clock.sleep(ms, signal),
  };

  /**
   * Record and live modes (and record-missing where no fixture hears it): the spoken turn goes to
   * the provider as audio, and its transcript is the user's turn the recording keeps.
   */
  function transcribe(speech: SpokenTurn, conversation: Conversation): Promise<string | null> | undefined {
    const mode = context.recording.modeNow();
    if (mode === 'replay') return undefined;
    if (mode === 'record-missing' && context.model.heard(conversation, speech.digest) !== null)
      return undefined;
    const { upstream } = socket;
    const connect = context.services.upstreamSocket;
    const relay = upstream && connect ? upstream.relay(connect) : undefined;
    if (!upstream || !relay?.hear) return undefined;
    const refused = context.recording.refusesHearing({
      provider: socket.provider,
      headers: upstream.headers,
      url: socket.url,
      keys: relay.keys,
      what: `spoken ${socket.protocol} turns of ${socket.url.split('?')[0]}`,
    });
    if (refused) {
      context.fail(refused.code, refused.message);
      return Promise.resolve(null);
    }
    return relay.hear(speech).then(
      (text) => {
        spoken = { text, digest: speech.digest };
        return text;
      },
      (error: unknown) => {
        const code = (error as { code?: unknown })?.code;
        const message = `jest-understudy: ${mode} mode could not hear this spoken ${socket.protocol} turn (${socket.url.split('?')[0]}) through the provider: ${String((error as Error)?.message ?? error)}`;
        context.fail(
          typeof code === 'string' && code.startsWith('RECORD_') ? (code as ErrorCode) : 'RECORD_UNAVAILABLE',
          message,
        );
        return null;
      },
    );
  }

  /** Record and live modes: the provider answers the turn, over the connection's upstream session. */
  async function forward(
    conversation: Conversation,
    request: unknown,
    signal: AbortSignal,
    startedAt: number,
    run: RunRecorder | undefined,
    mode: string,
  ): Promise<TurnOutcome> {
    const { upstream } = socket;
    const connect = context.services.upstreamSocket;
    if (!upstream || !connect) {
      const message = upstream
        ? `jest-understudy: ${mode} mode needs the jest-understudy environment to reach the provider, and this one offers no upstream socket.`
        : `${what} would go to the provider (mode "${mode}"), but ${socket.protocol} sessions cannot be recorded or sent live: run this test in replay mode with fixtures.`;
      context.fail(upstream ? 'RECORD_UNAVAILABLE' : 'RECORD_UNSUPPORTED', message);
      return refusal(message, upstream ? 502 : 400);
    }
    const relay = upstream.relay(connect);
    const forwarded = await context.recording.forwardTurn({
      protocol: socket.protocol,
      provider: socket.provider,
      conversation,
      request,
      url: socket.url,
      startedAt,
      index: server.nextIndex(),
      register: (call) => server.register(call, run),
      headers: upstream.headers,
      keys: [...relay.keys],
      ...(spoken && matchKeysOf(conversation).userMessage === spoken.text && { heard: spoken.digest }),
      exchange: () => relay.turn(request, conversation, signal),
    });
    if (forwarded.kind !== 'reply') return forwarded;
    return { kind: 'reply', reply: forwarded.reply, shaping: {}, cut: forwarded.cut };
  }

  async function answerTurn(
    conversation: Conversation,
    turn: { signal: AbortSignal; request?: unknown },
  ): Promise<TurnOutcome> {
    const startedAt = performance.now();
    // A turn of no run (its run or test ended, or a concurrent test's) is refused, and has failed its test.
    const claim = context.claim(() => `a ${socket.protocol} model turn (${socket.url})`);
    if (claim.refused) return refusal(claim.refused.message, claim.refused.status);
    const { run } = claim;
    const mode = context.recording.modeFor(run);
    const request = turn.request ?? {};
    const judged = server.judge({
      ...socket,
      body: request,
      conversation,
      startedAt,
      mode,
      what,
    });
    if (judged.kind === 'forward') return forward(conversation, request, turn.signal, startedAt, run, mode);
    const { call, answer, failTest } = judged;
    server.register(call, run);
    failTest?.();
    const outcome = outcomeOf(answer, true);
    if (outcome.latency) {
      try {
        await context.clock.sleep(outcome.latency, turn.signal);
      } catch {
        // The client cancelled before the answer was due: nothing of it reached the client.
        if (outcome.kind === 'reply') call.response = outcome.reply;
        cutCall(call, { reason: 'aborted', delivered: 0 }, undefined);
        call.durationMs = performance.now() - startedAt;
        return {
          kind: 'error',
          error: { status: 0, type: 'aborted', message: 'the client cancelled the turn' },
        };
      }
    }
    call.durationMs = performance.now() - startedAt;
    if (outcome.kind !== 'reply') {
      call.error = outcome.error;
      return outcome.kind === 'drop' ? { kind: 'drop', error: outcome.error } : outcome;
    }
    call.response = outcome.reply;
    if (outcome.streamError) call.streamError = outcome.streamError;
    return {
      kind: 'reply',
      reply: outcome.reply,
      shaping: outcome.shaping,
      ...(outcome.streamError && { streamError: outcome.streamError }),
      cut: (reason, reached, events) => cutCall(call, { reason, ...events }, reached),
    };
  }
}

/**
 * A socket turn's HTTP call (the Responses API's WebSocket mode), as the model server reads it:
 * a POST to the socket's URL, made of the body and headers the protocol gives, with no `Request`
 * built. A class, so that no accessor is made per call (see `ServedModelRequest`).
 */
export class SocketCallRequest implements ModelRequest {
  readonly method = 'POST';

  constructor(
    readonly url: string,
    private readonly call: SocketCall,
  ) {}

  get signal(): AbortSignal {
    return this.call.signal;
  }

  readBody(): Promise<string> {
    return Promise.resolve(this.call.body);
  }

  header(name: string): string | null {
    return this.call.headers[name.toLowerCase()] ?? null;
  }

  headers(): Headers {
    return new Headers(this.call.headers);
  }

  eachHeader(visit: (value: string, name: string) => void): void {
    for (const name in this.call.headers) visit(this.call.headers[name] as string, name);
  }
}
