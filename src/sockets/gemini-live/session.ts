/**
 * One Gemini Live session: the state the API keeps for a socket (its setup, the conversation, the
 * function calls waiting for responses, the turn being spoken) and the model turns it asks of the
 * file's mock model. Each turn is the whole conversation so far, decoded as a generateContent
 * request is, so fixtures match a Live session as they match HTTP.
 */
import type { Conversation, NeutralError } from '../../conversation';
import type { FixtureStreamError, StreamShaping } from '../../fixtures/types';
import type { CutReason } from '../../model/call';
import { chunkText, DEFAULT_CHUNK_SIZE } from '../../providers/codec';
import { decodeGemini } from '../../providers/gemini/decode';
import { argsObject } from '../../providers/gemini/ids';
import { createConversationStore } from '../../providers/store';
import type { SocketConnection, SocketData, SocketPeer, SocketServices, TurnOutcome } from '../protocol';
import { spokenDigest } from '../spoken-digest';
import { Listener, speak } from './speech';
import {
  AUDIO_OUT_RATE,
  type ClientMessage,
  closeFor,
  closeReason,
  frame,
  generationComplete,
  goAway,
  inputTranscription,
  interrupted,
  invalid,
  isRefusal,
  type LiveSetup,
  modelAudio,
  modelText,
  outputTranscription,
  type Refusal,
  readClientMessage,
  readSetup,
  type ServerMessage,
  setupComplete,
  toolCall,
  toolCallCancellation,
  turnComplete,
  type WireCall,
} from './wire';

/** What a Live session asks of the file besides a model turn, where the file lends it. */
/** What a Live session uses of the file: the socket services. */
export type LiveServices = SocketServices;

type Reply = Extract<TurnOutcome, { kind: 'reply' }>;

type Content = { role: 'user' | 'model'; parts: Array<Record<string, unknown>> };

/** The turn the model is giving: aborted when the user cuts in. */
interface Speaking {
  abort: AbortController;
  /** The text that reached the client so far (what the model said, should it be cut off). */
  said: string;
  /** Its messages sent so far, of how many, once the reply is known. */
  sent: number;
  of: number;
  reply?: Reply;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export class LiveSession implements SocketConnection {
  private state: 'setup' | 'open' | 'closed' = 'setup';
  private setup!: LiveSetup;
  private readonly contents: Content[] = [];
  private readonly store = createConversationStore();
  private speaking: Speaking | undefined;
  /** Function calls sent and not yet answered, by id (their name). */
  private readonly waiting = new Map<string, string>();
  /** Calls cancelled by an interruption: a late response to one is dropped, as the API drops it. */
  private readonly cancelled = new Set<string>();
  private responses: Array<Record<string, unknown>> = [];
  private readonly listener = new Listener();
  /** The user's audio since the last turn as the client sent it (base64, its MIME type): a recorded turn sends it upstream. */
  private spoken: string[] = [];
  private spokenFormat: string | undefined;
  /** The client marked the start of the user's activity (manual activity detection). */
  private active = false;
  /** Realtime text typed during a manual activity, sent with it when it ends. */
  private typed: string[] = [];
  /** The user's parts of client content sent since the last model turn, until a complete turn (the session's evidence). */
  private typing: Array<Record<string, unknown>> = [];
  private calls = 0;

  constructor(
    private readonly peer: SocketPeer,
    private readonly services: LiveServices,
  ) {}

  message(data: SocketData): void {
    if (this.state === 'closed') return;
    const message = readClientMessage(data);
    if (isRefusal(message)) {
      this.refuse(message);
      return;
    }
    if (this.state === 'setup') {
      if (message.kind !== 'setup') {
        this.refuse(
          invalid(message.kind, `the first message of a session is setup; ${message.kind} came before it`),
        );
        return;
      }
      const setup = readSetup(message.setup);
      if (isRefusal(setup)) {
        this.refuse(setup);
        return;
      }
      this.setup = setup;
      this.state = 'open';
      this.send(setupComplete());
      return;
    }
    this.handle(message);
  }

  closed(): void {
    const speaking = this.speaking;
    this.end();
    // The client went away mid-answer: the call keeps what reached it.
    if (speaking) this.cut(speaking, 'aborted');
  }

  private handle(message: ClientMessage): void {
    switch (message.kind) {
      case 'setup':
        this.refuse(invalid('setup', 'setup is sent once, as the first message of the session'));
        return;
      case 'contextUpdate': {
        const { systemInstruction, tools } = message.update;
        if (systemInstruction !== undefined) this.setup.systemInstruction = systemInstruction;
        if (Array.isArray(tools)) this.setup.tools = tools;
        return;
      }
      case 'clientContent':
        if (message.turns.length > 0) this.interrupt();
        for (const t of message.turns as Content[]) {
          this.contents.push({ role: t.role === 'model' ? 'model' : 'user', parts: t.parts });
          // History the client loads is not the user's turn: only what follows its last model turn is.
          if (t.role === 'model') this.typing = [];
          else this.typing.push(...(t.parts ?? []));
        }
        if (message.turnComplete) {
          this.noteTyped(this.typing);
          this.typing = [];
          this.respond();
        }
        return;
      case 'toolResponse':
        this.toolResponse(message.responses);
        return;
      case 'realtimeInput':
        this.realtimeInput(message.input);
        return;
    }
  }

  private realtimeInput(input: Record<string, any>): void {
    const { manualActivity } = this.setup;
    if (input.activityStart !== undefined || input.activityEnd !== undefined) {
      if (!manualActivity) {
        this.refuse(
          invalid(
            `realtimeInput.${input.activityStart !== undefined ? 'activityStart' : 'activityEnd'}`,
            'activityStart and activityEnd mark the user’s turns only when setup.realtimeInputConfig.automaticActivityDetection.disabled is true',
            'Explicit activity control is not supported when automatic activity detection is enabled.',
          ),
        );
        return;
      }
      if (input.activityStart !== undefined) {
        this.cutIn();
        this.active = true;
        this.listener.reset();
        this.spoken = [];
        this.typed = [];
      }
    }
    for (const audio of audioOf(input)) {
      if (!this.listener.started) this.cutIn();
      this.spoken.push(audio);
      this.spokenFormat ??= audioMimeOf(input);
      const heard = this.listener.hear(Buffer.from(audio, 'base64'));
      // Server-side activity detection hears the end of speech: here, the end of an utterance `speak` made.
      if (!manualActivity && heard.complete) this.userSpoke();
    }
    if (typeof input.text === 'string') {
      if (manualActivity && this.active) this.typed.push(input.text);
      else {
        this.cutIn();
        this.contents.push({ role: 'user', parts: [{ text: input.text }] });
        this.noteTyped([{ text: input.text }]);
        this.respond();
      }
    }
    if (input.audioStreamEnd === true && !manualActivity && this.listener.started) this.userSpoke();
    if (input.activityEnd !== undefined && this.active) {
      this.active = false;
      this.userSpoke();
    }
  }

  /**
   * The user's speech (or typing) ends a turn, and the model answers. Audio `speak` made is heard
   * as its words; other audio as what the fixtures have the user say next (audio is matched by its
   * transcript), and the input transcription carries it.
   */
  private userSpoke(): void {
    let text: string | null = null;
    const spoke = this.listener.started;
    if (spoke) {
      text = this.listener.heard().text;
      this.listener.reset();
      const chunks = this.spoken;
      this.spoken = [];
      if (text === null) {
        const spoken = this.conversation([{ role: 'user', parts: [{ inlineData: SPEECH }] }]);
        // Record and live modes: the provider hears the audio, and its transcript is the user's turn.
        const digest = spokenDigest(chunks);
        const transcribed = spoken && this.services.transcribe?.(this.speech(chunks, digest), spoken);
        if (transcribed) {
          const typed = this.typed;
          this.typed = [];
          void transcribed.then((heard) => {
            if (this.state === 'closed') return;
            if (heard === null) this.close(1011, 'The provider gave no transcript of the spoken turn.');
            else this.userTurn(true, heard, typed);
          });
          return;
        }
        if (spoken) text = this.services.heard(spoken, digest);
      }
    }
    const typed = this.typed;
    this.typed = [];
    this.userTurn(spoke, text, typed);
  }

  /** The user's turn, as heard: its words (null: speech no fixture hears), then what was typed with it. */
  private userTurn(spoke: boolean, text: string | null, typed: readonly string[]): void {
    const parts: Array<Record<string, unknown>> = [];
    if (spoke) {
      if (text !== null) {
        if (this.setup.inputTranscription) this.send(inputTranscription(text));
        parts.push({ text });
      } else parts.push({ inlineData: SPEECH });
      // Speech not made out, with typed text beside it, is the typed turn.
      if (text === null && typed.length > 0) this.noteTyped(typed.map((t) => ({ text: t })));
      else this.services.note?.({ kind: 'user', via: 'audio', text: text && [text, ...typed].join(' ') });
    } else if (typed.length > 0) this.noteTyped(typed.map((t) => ({ text: t })));
    for (const t of typed) parts.push({ text: t });
    if (parts.length === 0) return;
    this.contents.push({ role: 'user', parts });
    this.respond();
  }

  /** A spoken turn as the provider takes it, with the session's setup for the socket it may open. */
  private speech(chunks: string[], digest: string) {
    const { setup } = this;
    return {
      chunks,
      digest,
      format: this.spokenFormat ?? 'audio/pcm;rate=16000',
      transcription: setup.inputTranscription ? {} : undefined,
      setup: {
        ...this.turnSetup(),
        ...(setup.manualActivity && {
          realtimeInputConfig: { automaticActivityDetection: { disabled: true } },
        }),
      },
    };
  }

  /** Speech or activity from the user while the model talks cuts it off, unless the setup says not to. */
  private cutIn(): void {
    if (!this.setup.noInterruption) this.interrupt();
  }

  private toolResponse(responses: Array<Record<string, any>>): void {
    for (let i = 0; i < responses.length; i++) {
      const r = responses[i];
      const id = typeof r.id === 'string' ? r.id : undefined;
      if (id !== undefined && this.cancelled.has(id)) continue;
      if (id === undefined || !this.waiting.has(id)) {
        const open = [...this.waiting].map(([k, name]) => `${name} (${k})`);
        this.refuse(
          invalid(
            `toolResponse.functionResponses[${i}].id`,
            `${r.name} answers ${id === undefined ? 'no id' : `id ${JSON.stringify(id)}`}, but ${
              open.length > 0 ? `the calls waiting are ${open.join(', ')}` : 'no function call is waiting'
            }`,
          ),
        );
        return;
      }
      this.waiting.delete(id);
      this.responses.push({ functionResponse: { id, name: r.name, response: r.response ?? {} } });
      this.services.note?.({ kind: 'tool output', callId: id, output: r.response ?? {} });
    }
    if (this.waiting.size > 0 || this.responses.length === 0) return;
    this.contents.push({ role: 'user', parts: this.responses });
    this.responses = [];
    this.respond();
  }

  /** The model's turn is cut off: what it said so far stays in the conversation, its pending calls are cancelled. */
  private interrupt(): void {
    const speaking = this.speaking;
    if (speaking) {
      this.speaking = undefined;
      this.services.note?.({ kind: 'interrupted', by: 'user', turn: speaking.reply });
      speaking.abort.abort();
      if (speaking.said) this.contents.push({ role: 'model', parts: [{ text: speaking.said }] });
      this.cut(speaking, 'aborted');
      this.send(interrupted());
      this.send(turnComplete());
    }
    if (this.waiting.size > 0) {
      const ids = [...this.waiting.keys()];
      for (const id of ids) this.cancelled.add(id);
      this.waiting.clear();
      this.responses = [];
      // The cancelled calls leave the conversation, as if never made.
      const last = this.contents.at(-1);
      if (last?.role === 'model') {
        last.parts = last.parts.filter((p) => !p.functionCall);
        if (last.parts.length === 0) this.contents.pop();
      }
      this.send(toolCallCancellation(ids));
      if (!speaking) this.send(turnComplete());
    }
  }

  /** The user's typed turn, for the session's evidence. */
  private noteTyped(parts: ReadonlyArray<Record<string, unknown>>): void {
    const texts = parts.map((p) => p.text).filter(isText);
    if (texts.length > 0) this.services.note?.({ kind: 'user', via: 'text', text: texts.join(' ') });
  }

  /** Tells the file how much of a reply reached the client, when not all of it did. */
  private cut(speaking: Speaking, reason: CutReason): void {
    const { reply } = speaking;
    if (!reply) return;
    const reached = speaking.said ? { ...reply.reply, content: speaking.said, toolCalls: [] } : undefined;
    reply.cut(reason, reached, { delivered: speaking.sent, of: speaking.of });
  }

  /** The conversation so far (and `more`), as the mock model reads it; undefined when it does not decode. */
  private conversation(more: Content[] = []): Conversation | undefined {
    const decoded = this.decode(more);
    return decoded.ok ? decoded.conversation : undefined;
  }

  private decode(more: Content[] = []) {
    const { setup } = this;
    const model = setup.model.includes('/') ? setup.model : `models/${setup.model}`;
    const decoded = decodeGemini(
      {
        contents: [...this.contents, ...more],
        ...(setup.systemInstruction !== undefined ? { systemInstruction: setup.systemInstruction } : {}),
        ...(setup.tools ? { tools: setup.tools } : {}),
      },
      { path: `/v1beta/${model}:generateContent`, query: new URLSearchParams(), store: this.store },
    );
    if (!decoded.ok) return decoded;
    return {
      ok: true as const,
      conversation: { ...decoded.conversation, protocol: 'gemini.live', stream: true },
    };
  }

  /** The setup a model turn carries (recording keeps it; a relay sets the provider's session up with it). */
  private turnSetup() {
    const { setup } = this;
    return {
      model: setup.model,
      generationConfig: setup.generationConfig,
      ...(setup.systemInstruction !== undefined && { systemInstruction: setup.systemInstruction }),
      tools: setup.tools,
      ...(setup.outputTranscription && { outputAudioTranscription: {} }),
    };
  }

  /** One model turn over the conversation so far. */
  private respond(): void {
    const speaking: Speaking = { abort: new AbortController(), said: '', sent: 0, of: 0 };
    this.speaking = speaking;
    void this.turn(speaking).catch((error: unknown) => {
      if (this.speaking !== speaking || this.state === 'closed') return;
      this.close(1011, error instanceof Error ? error.message : 'Internal error encountered.');
    });
  }

  private async turn(speaking: Speaking): Promise<void> {
    const decoded = this.decode();
    if (!decoded.ok) {
      this.refuse(invalid('clientContent', decoded.error.message.trim()));
      return;
    }
    const request = { setup: this.turnSetup(), contents: [...this.contents] };
    const outcome = await this.services.answer(decoded.conversation, {
      signal: speaking.abort.signal,
      request,
    } as {
      signal: AbortSignal;
    });
    if (this.speaking !== speaking || this.state === 'closed') {
      // Cut off (or gone) before the answer came: none of it reached the client.
      if (outcome.kind === 'reply') outcome.cut('aborted', undefined, { delivered: 0, of: 1 });
      return;
    }
    if (outcome.kind === 'drop') return this.drop();
    if (outcome.kind === 'error') return this.fail(outcome.error);
    speaking.reply = outcome;
    await this.say(speaking, outcome);
  }

  /**
   * The reply on the wire: text, or audio with its transcript, in chunks, then the calls or the
   * turn's end. A fixture's cut (truncated, disconnected) drops the socket where it says; a
   * mid-response error closes it as the API closes a failed session.
   */
  private async say(speaking: Speaking, outcome: Reply): Promise<void> {
    const { reply, shaping, streamError } = outcome;
    const { modality, outputTranscription: transcribe } = this.setup;
    const chunks = chunkText(reply.content ?? '', shaping.chunkSize ?? DEFAULT_CHUNK_SIZE);
    speaking.of = chunks.length + 1;
    const stop = stopOf(shaping, streamError, chunks.length);
    const malformedAt =
      shaping.malformed === true ? 0 : typeof shaping.malformed === 'number' ? shaping.malformed : -1;
    const sleep = (ms: number, signal?: AbortSignal) => this.services.sleep(ms, signal);
    for (let i = 0; i < chunks.length; i++) {
      if (stop && i === stop.at) break;
      if (i === malformedAt) {
        this.peer.send('{"serverContent":{"modelTurn":{"parts":[{"text":');
        this.cut(speaking, 'malformed');
      } else if (modality === 'TEXT') this.send(modelText(chunks[i]));
      else {
        this.send(modelAudio(base64(speak(chunks[i], AUDIO_OUT_RATE))));
        if (transcribe) this.send(outputTranscription(chunks[i]));
      }
      if (i !== malformedAt) speaking.said += chunks[i];
      if (malformedAt === -1 || i < malformedAt) speaking.sent = i + 1;
      if (shaping.chunkDelay && i < chunks.length - 1) {
        const paused = await sleep(shaping.chunkDelay, speaking.abort.signal).then(
          () => true,
          () => false,
        );
        if (!paused || this.speaking !== speaking || this.state === 'closed') return;
      }
    }
    if (stop) {
      this.speaking = undefined;
      this.cut(speaking, stop.reason);
      if (stop.reason === 'stream_error' && streamError) this.fail(errorOf(streamError));
      else this.drop();
      return;
    }
    this.speaking = undefined;
    const parts: Array<Record<string, unknown>> = speaking.said ? [{ text: speaking.said }] : [];
    if (reply.toolCalls.length > 0) {
      const calls: WireCall[] = reply.toolCalls.map((c) => ({
        id: c.id && !c.anonymous ? c.id : `function-call-${++this.calls}`,
        name: c.name,
        args: argsObject(c.arguments),
      }));
      for (const c of calls) {
        this.waiting.set(c.id, c.name);
        parts.push({ functionCall: c });
      }
      this.contents.push({ role: 'model', parts });
      this.send(toolCall(calls, reply.usage, modality));
      return;
    }
    if (parts.length > 0) this.contents.push({ role: 'model', parts });
    this.send(generationComplete());
    this.send(turnComplete(reply.usage, modality));
  }

  /**
   * A failed turn ends the session as the API ends it: a close frame with its code and reason.
   * An unavailable service first says it goes away (`goAway`), as the API does before it disconnects.
   */
  private fail(error: NeutralError): void {
    if (error.status === 503) {
      this.send(goAway(error.retryAfter ?? 0));
      this.close(1001, error.message);
      return;
    }
    const { code, reason } = closeFor(error);
    this.close(code, reason);
  }

  private refuse(refusal: Refusal): void {
    this.services.refused({
      status: 400,
      type: 'INVALID_ARGUMENT',
      message: `${refusal.problem}; the API closes the session: ${refusal.code} ${refusal.reason}`,
      param: refusal.at,
    });
    this.close(refusal.code, refusal.reason);
  }

  private send(message: ServerMessage): void {
    this.peer.send(frame(message));
  }

  private close(code: number, reason: string): void {
    this.end();
    this.peer.close(code, closeReason(reason));
  }

  private drop(): void {
    this.end();
    this.peer.drop();
  }

  private end(): void {
    this.state = 'closed';
    this.speaking?.abort.abort();
    this.speaking = undefined;
  }
}

const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** A spoken user turn whose words are not known, as the conversation keeps it. */
const SPEECH = { mimeType: 'audio/pcm;rate=16000', data: '' };

/** Where a fixture stops the reply short, in chunks, and why. */
function stopOf(
  shaping: StreamShaping,
  streamError: FixtureStreamError | undefined,
  chunks: number,
): { at: number; reason: CutReason } | undefined {
  if (streamError) return { at: streamError.afterChunks ?? Math.floor(chunks / 2), reason: 'stream_error' };
  if (shaping.truncateAfterChunks !== undefined)
    return { at: shaping.truncateAfterChunks, reason: 'truncated' };
  if (shaping.disconnect) return { at: Math.floor(chunks / 2), reason: 'disconnected' };
  return undefined;
}

/** A mid-response error as the session's failure: a server error unless the fixture says otherwise. */
function errorOf(e: FixtureStreamError): NeutralError {
  return { status: e.status ?? 500, type: e.type ?? 'INTERNAL', message: e.message };
}

/** The MIME type of the audio in a realtimeInput message (`audio/pcm;rate=16000`), if it names one. */
function audioMimeOf(input: Record<string, any>): string | undefined {
  const blobs = [input.audio, ...(input.mediaChunks ?? input.media_chunks ?? [])];
  for (const b of blobs) {
    const mime = b?.mimeType ?? b?.mime_type;
    if (typeof mime === 'string' && mime.startsWith('audio/')) return mime;
  }
  return undefined;
}

/** The base64 audio of a realtimeInput: `audio`, or the older `mediaChunks` of an audio type. */
function audioOf(input: Record<string, any>): string[] {
  const out: string[] = [];
  const blob = (b: unknown) => {
    const x = b as { data?: unknown; mimeType?: unknown; mime_type?: unknown } | null;
    const mime = x?.mimeType ?? x?.mime_type;
    if (typeof x?.data === 'string' && (typeof mime !== 'string' || mime.startsWith('audio/')))
      out.push(x.data);
  };
  if (input.audio !== undefined) blob(input.audio);
  const chunks = input.mediaChunks ?? input.media_chunks;
  if (Array.isArray(chunks)) for (const c of chunks) blob(c);
  return out;
}
