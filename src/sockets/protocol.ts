/**
 * The seam between a WebSocket carrier and a provider's socket protocol (OpenAI Realtime, the
 * Responses API's WebSocket mode, Gemini Live). A carrier — the `ws` package's upgrade over
 * node:http, Node's global `WebSocket` (undici), the served port, a browser route — accepts a
 * connection to a provider host and hands it here; the protocol answers its messages. Protocols know
 * no carrier, carriers know no protocol: both sides meet only in these types.
 */
import type { Conversation, NeutralError, NeutralReply, ProviderId } from '../conversation';
import type { FixtureStreamError, StreamShaping } from '../fixtures/types';
import type { CutReason } from '../model/call';
import type { ReplyDecodeResult } from '../providers/codec';

/** A message as it crossed the socket: a text frame, or a binary one. */
export type SocketData = string | Uint8Array;

/** The client's side of one connection, as the protocol writes to it. */
export interface SocketPeer {
  /** Sends one message to the client. */
  send(data: SocketData): void;
  /** Closes with a close frame (`code` as RFC 6455 and the provider use them). */
  close(code: number, reason?: string): void;
  /** Ends the connection with no close frame, as a network failure does (the `1006` a client sees). */
  drop(): void;
}

/** What the client asked for when it opened the connection. */
export interface SocketOpening {
  /** The `ws:`/`wss:` URL the client opened (an `http(s):` upgrade request is given as `ws(s):`). */
  url: URL;
  /** The path below the provider's base URL, without the query (`/realtime`, `/responses`). */
  path: string;
  /** One request header of the upgrade (null when absent). */
  header(name: string): string | null;
  /** All of them (credentials included: a turn served over HTTP notes them for scrubbing). */
  headers(): Headers;
  /** The subprotocols the client offered (`Sec-WebSocket-Protocol`), in its order. */
  protocols: readonly string[];
}

/** One connection, served: the carrier calls these as the client's frames and close arrive. */
export interface SocketConnection {
  message(data: SocketData): void;
  /** The client closed (or the carrier lost the connection). */
  closed(code: number, reason: string): void;
}

/**
 * How one model turn ended, in neutral terms, for a protocol to put on its wire. The turn went
 * through everything an HTTP call goes through (request contracts, the fixtures, chaos, recording,
 * the file's call log and the run's evidence) before it comes back here.
 */
export type TurnOutcome =
  | {
      kind: 'reply';
      reply: NeutralReply;
      shaping: StreamShaping;
      /** The response ends with this error event instead of completing (fixture `streamError`, chaos). */
      streamError?: FixtureStreamError;
      /**
       * Less of the reply reached the client than was made (an interruption, a dropped socket, an
       * error event mid-response): what did, for the call log and the run, and how much of it.
       */
      cut(
        reason: CutReason,
        reached: NeutralReply | undefined,
        events: { delivered: number; of: number },
      ): void;
    }
  | { kind: 'error'; error: NeutralError }
  /** The fixture drops the connection (`truncateAfterChunks`, a chaos drop): close with no frame. */
  | { kind: 'drop'; error: NeutralError; afterChunks?: number };

/**
 * What happened in a session that its model turns do not say, for the test's trace (the session's
 * turns): the user's input as the session heard it, the client's tool outputs, an interruption and
 * how much of the answer the user had heard. `turn` names the model turn the interruption cut.
 */
export type SessionNote =
  | {
      kind: 'user';
      /** Spoken (heard as its transcript) or typed. */
      via: 'audio' | 'text';
      /** What the session heard or read; null for speech it could not make out. */
      text: string | null;
    }
  | { kind: 'tool output'; callId: string; output: unknown }
  | {
      kind: 'interrupted';
      /** `user`: the server heard the user speak over the answer; `client`: the client cancelled it. */
      by: 'user' | 'client';
      turn?: TurnOutcome;
    }
  | {
      kind: 'truncated';
      /** The client stopped playing the answer here: ms of its audio the user heard, and the characters that speak. */
      heardMs?: number;
      heardChars: number;
      /** Characters of the whole answer. */
      ofChars: number;
      turn?: TurnOutcome;
    };

/** What the file's session offers a socket protocol. */
export interface SocketServices {
  /** Answers one model turn of the conversation the socket built so far. */
  answer(
    conversation: Conversation,
    turn: {
      signal: AbortSignal;
      /** The request as the call log keeps it and contracts read it (the session's settings and the turn's). */
      request?: unknown;
    },
  ): Promise<TurnOutcome>;
  /**
   * The client sent an event the API refuses (the protocol sends the API's error event itself):
   * fails the test as a refused HTTP request does, unless the `parameters` contract is off.
   */
  refused(error: NeutralError): void;
  /**
   * What the user says in a spoken turn whose audio carries no text: the `userMessage` of the
   * first fixture not served yet that would answer the conversation with it as the user's turn
   * (else of the first served one; null: none would). `audio`: the `sha256:` digest of the turn's
   * audio, which a fixture recorded from a spoken turn must have been heard from.
   */
  heard(conversation: Conversation, audio?: string): string | null;
  /**
   * Record and live modes: the provider's transcript of a spoken turn, its audio sent upstream as
   * the client sent it. Undefined when the fixtures hear the turn (replay; record-missing with a
   * fixture that does). Resolves null when the provider gave no transcript: the test has failed
   * saying what to turn on, and the turn is not answered.
   */
  transcribe?(speech: SpokenTurn, conversation: Conversation): Promise<string | null> | undefined;
  /** Waits `ms` on the file's clock (a fixture's pacing), or until `signal` aborts (then rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Serves one HTTP call to the provider through the file's HTTP pipeline, as if the client had
   * made it (route, contracts, fixtures, chaos, recording, the call log and evidence, the crash
   * gate): for a protocol whose turns are the provider's HTTP calls framed as messages (the
   * Responses API's WebSocket mode). A streamed answer comes back as its events, with no HTTP
   * response and no bytes between them and the socket. Undefined when nothing of the file answers
   * the URL. Called in the async context of the message that asked for it, so the call belongs to
   * that message's run; rejects when `call.signal` aborted before the answer was ready.
   */
  call(call: SocketCall): Promise<SocketCallAnswer | undefined>;
  /** Notes what happened in the session for its evidence (absent where nothing keeps it). */
  note?(note: SessionNote): void;
}

/** The user's spoken turn, as its protocol sends it upstream. */
export interface SpokenTurn {
  /** The audio, base64, in the chunks the client sent. */
  chunks: readonly string[];
  /** `sha256:` of the audio's bytes: the recording binds the turn's transcript to it. */
  digest: string;
  /** Realtime: `audio/pcm`…; Live: the chunks' MIME type (`audio/pcm;rate=16000`). */
  format: unknown;
  /** The client's own input transcription setting (mirrored upstream; asked for when absent). */
  transcription?: unknown;
  /** Realtime: the session's item the turn became (already in the provider's conversation once heard). */
  id?: string;
  /** Live: the session's setup, for a provider session this turn opens. */
  setup?: unknown;
}

/** One HTTP call of a socket's turn: a `POST` to the socket's own URL (`wss:` as `https:`). */
export interface SocketCall {
  /** The request body, JSON. */
  body: string;
  /** Its headers, names in lower case (the upgrade's, as the client would send them with a POST). */
  headers: Readonly<Record<string, string>>;
  /** Aborts when the turn is given up (the socket closed). */
  signal: AbortSignal;
}

/**
 * How the pipeline answered a socket's call: a streamed answer as its events (each one or more
 * of the provider's SSE frames, as the HTTP response's body would carry them), anything else
 * (an error, a reply from the real provider, a crashed run's stall) as the HTTP response.
 */
export type SocketCallAnswer =
  | { kind: 'events'; events: CallEvents }
  | { kind: 'response'; response: Response };

/** A streamed answer's events as they go out, paced and shaped as over HTTP. */
export interface CallEvents {
  readonly count: number;
  event(at: number): string | Uint8Array;
  /** ms to wait on the file's clock before event `at`. */
  delay(at: number): number;
  /** After the last event the connection drops (a disconnect fault). */
  readonly fails: boolean;
  /** The client stopped taking events after `sent` of them, before the end. */
  stopped(sent: number): void;
  /** How many events went out so far, while they are being sent (set by the sender). */
  progress?: () => number | undefined;
}

/** A provider's socket protocol, as a codec is for HTTP: registered by provider and path. */
export interface SocketProtocol {
  /** The protocol's name in evidence and messages, e.g. `openai.realtime`. */
  protocol: string;
  provider: ProviderId;
  /** Does this protocol serve a connection to `path` (below the provider's base URL)? */
  handles(path: string): boolean;
  /** What `handles` accepts, for people: `GET /realtime` (relative to the base URL). */
  endpoints: readonly string[];
  /** The subprotocol to accept from those the client offered, if any. */
  subprotocol?(offered: readonly string[]): string | undefined;
  open(opening: SocketOpening, peer: SocketPeer, services: SocketServices): SocketConnection;
  /**
   * Record and live modes: the connection's own session with the real provider, which answers
   * its turns instead of the fixtures. Absent: the protocol's turns cannot be sent upstream.
   */
  relay?(opening: SocketOpening, connect: UpstreamConnector): UpstreamRelay;
}

/** A WebSocket to the real provider, as the environment opens it past the interception. */
export interface UpstreamSocketRequest {
  /** The `ws:`/`wss:` URL (the client's, credentials in its query included). */
  url: string;
  /** The upgrade's headers to send (the client's credentials among them). */
  headers: Array<[string, string]>;
  /** Subprotocols to offer, in order. */
  protocols: string[];
}

/** The part of the standard `WebSocket` a relay uses (Node's own, in the environment's realm). */
export interface UpstreamSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

/** Opens a socket to the real provider; undefined when the runner offers none (outside the environment). */
export type UpstreamConnector = (request: UpstreamSocketRequest) => UpstreamSocket | undefined;

/**
 * One client connection's session with the real provider: opened on its first turn, it mirrors
 * the session's settings, sends what the client added since the last turn, asks for a response
 * and reads it back as the neutral reply the session then serves (and recording keeps).
 */
export interface UpstreamRelay {
  /** Credentials the client sent outside its headers and URL (a subprotocol), for the key check and scrubbing. */
  readonly keys: readonly string[];
  turn(request: unknown, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult>;
  /**
   * Sends a spoken turn to the provider as audio and resolves with its input transcription (the
   * turn the recording keeps as the user's text); rejects with a `code` when none comes.
   */
  hear?(speech: SpokenTurn): Promise<string>;
  /** The client's connection ended: the provider's goes too. */
  close(): void;
}
