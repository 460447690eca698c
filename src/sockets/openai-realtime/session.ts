/**
 * One Realtime session: the state the API keeps for a connection (its configuration, the
 * conversation's items, the input audio buffer, the response in progress) and its answers to
 * the client's events. Each model turn goes to `services.answer`; the wire is ./codec.ts's.
 */
import type { NeutralError, NeutralReply } from '../../conversation';
import type { CutReason } from '../../model/call';
import type { SocketData, SocketPeer, SocketServices, TurnOutcome } from '../protocol';
import { spokenDigest } from '../spoken-digest';
import { type AudioFormat, durationMs, fromBase64, heardChars, isSilence, MS_PER_CHAR } from './audio';
import { conversationOf, Ids, type Item, type PlannedEvent, planResponse, replyReached } from './codec';
import {
  applySessionUpdate,
  checkSessionUpdate,
  defaultSession,
  type RealtimeSession,
} from './session-config';

type Obj = Record<string, any>;

/** Deterministic `created` stamp (2026-01-01T00:00:00Z): replays must not depend on the clock. */
const CREATED = 1767225600;

const RATE_LIMITS = (remaining: number) => [
  {
    name: 'requests',
    limit: 5000,
    remaining: remaining === 0 ? 0 : 4999,
    reset_seconds: remaining === 0 ? 1 : 0.012,
  },
  { name: 'tokens', limit: 40000, remaining, reset_seconds: remaining === 0 ? 1 : 0.4 },
];

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const CLIENT_EVENTS = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'output_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
];

/** The response being sent. */
interface Active {
  id: string;
  controller: AbortController;
  /** The events that reached the client so far (after `response.created`). */
  sent: PlannedEvent[];
  plan?: { events: PlannedEvent[]; response: Obj };
  outcome?: Extract<TurnOutcome, { kind: 'reply' }>;
  cancelled?: 'client_cancelled' | 'turn_detected';
  /** Its items, as they stand, by id (they change as deltas go out). */
  live: Map<string, Item>;
  outOfBand: boolean;
}

/** The user's audio since the last commit. */
interface InputBuffer {
  /** The audio as the client appended it (base64): a recorded turn sends it to the provider. */
  chunks: string[];
  bytes: number;
  ms: number;
  speaking: boolean;
  silentMs: number;
  itemId?: string;
}

export class RealtimeSessionMachine {
  private session: RealtimeSession;
  private readonly items: Item[] = [];
  private readonly ids = new Ids();
  private events = 0;
  private audioSent = false;
  private buffer: InputBuffer = { chunks: [], bytes: 0, ms: 0, speaking: false, silentMs: 0 };
  /** ms of input audio received in the whole session (`audio_start_ms`, `audio_end_ms`). */
  private inputMs = 0;
  private active: Active | undefined;
  private closed = false;
  /** The user's spoken turn ended during a response: answer it once that one is done. */
  private queued = false;
  /** Record and live modes: the provider is transcribing the last spoken turn; a response waits for it. */
  private hearing: Promise<void> | undefined;
  /** The provider gave no transcript of the last spoken turn: the response asked for is refused. */
  private unheard: NeutralError | undefined;
  private readonly conversationId: string;
  /** ms of audio sent for each assistant item, for truncation. */
  private readonly audioOut = new Map<string, number>();
  /** The assistant's spoken items and the model call each came from, for truncation. */
  private readonly spoken = new Map<
    string,
    { reply: NeutralReply; outcome: Extract<TurnOutcome, { kind: 'reply' }>; delivered: number; of: number }
  >();

  constructor(
    model: string,
    private readonly peer: SocketPeer,
    private readonly services: SocketServices,
  ) {
    this.session = defaultSession(this.ids.next('sess'), model, CREATED);
    this.conversationId = this.ids.next('conv');
    this.emit({ type: 'session.created', session: this.session });
  }

  // ── The wire ──────────────────────────────────────────────────────────────────

  private emit(event: Obj): undefined {
    if (this.closed) return;
    this.events++;
    const id = `event_${String(this.events).padStart(6, '0')}`;
    // The id goes first, as the API sends it; joined as text, the event is not copied to put it there.
    const json = JSON.stringify(event);
    this.peer.send(
      Object.hasOwn(event, 'event_id')
        ? JSON.stringify({ event_id: id, ...event })
        : json === '{}'
          ? `{"event_id":"${id}"}`
          : `{"event_id":"${id}",${json.slice(1)}`,
    );
  }

  /** The API's `error` event for a client event it refuses (`eventId`: the client's, if it sent one). */
  private error(error: NeutralError, eventId: unknown, refused = true): undefined {
    if (refused) this.services.refused(error);
    this.emit({
      type: 'error',
      error: {
        type: error.type,
        code: error.code ?? null,
        message: error.message,
        param: error.param ?? null,
        event_id: typeof eventId === 'string' ? eventId : null,
      },
    });
  }

  message(data: SocketData): undefined {
    if (this.closed) return;
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_json',
          message: 'The server could not parse the event: it is not valid JSON.',
        },
        undefined,
      );
      return;
    }
    if (!isObject(event) || typeof event.type !== 'string') {
      this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          param: 'type',
          message: "Missing required parameter: 'type'.",
        },
        undefined,
      );
      return;
    }
    const id = event.event_id;
    switch (event.type) {
      case 'session.update':
        return this.updateSession(event.session, id);
      case 'conversation.item.create':
        return this.createItem(event, id);
      case 'conversation.item.retrieve': {
        const item = this.items.find((i) => i.id === event.item_id);
        if (!item) return this.notFound(event.item_id, 'item_id', id);
        return this.emit({ type: 'conversation.item.retrieved', item });
      }
      case 'conversation.item.delete': {
        const at = this.items.findIndex((i) => i.id === event.item_id);
        if (at < 0) return this.notFound(event.item_id, 'item_id', id);
        this.items.splice(at, 1);
        return this.emit({ type: 'conversation.item.deleted', item_id: event.item_id });
      }
      case 'conversation.item.truncate':
        return this.truncate(event, id);
      case 'input_audio_buffer.append':
        return this.append(event, id);
      case 'input_audio_buffer.commit':
        if (this.buffer.ms < 100)
          return this.error(
            {
              status: 400,
              type: 'invalid_request_error',
              code: 'input_audio_buffer_commit_empty',
              message: `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${this.buffer.ms.toFixed(2)}ms of audio.`,
            },
            id,
          );
        this.commit();
        return;
      case 'input_audio_buffer.clear':
        this.buffer = { chunks: [], bytes: 0, ms: 0, speaking: false, silentMs: 0 };
        return this.emit({ type: 'input_audio_buffer.cleared' });
      case 'output_audio_buffer.clear':
        // WebRTC's: a WebSocket client plays its own audio.
        return;
      case 'response.create':
        return void this.respond(isObject(event.response) ? event.response : {}, id);
      case 'response.cancel':
        if (!this.active || (event.response_id !== undefined && event.response_id !== this.active.id))
          return this.error(
            {
              status: 400,
              type: 'invalid_request_error',
              code: 'response_cancel_not_active',
              message: 'Cancellation failed: no active response found.',
            },
            id,
            false,
          );
        return this.cancel('client_cancelled');
      default:
        return this.error(
          {
            status: 400,
            type: 'invalid_request_error',
            code: 'invalid_value',
            param: 'type',
            message: `Invalid value: '${event.type}'. Supported values are: ${CLIENT_EVENTS.map((t) => `'${t}'`).join(', ')}.`,
          },
          id,
        );
    }
  }

  /** The client closed, or the connection was lost: a response still going out is cut where it stands. */
  closedByClient(): undefined {
    if (this.active) this.stop('aborted');
    this.closed = true;
  }

  private notFound(itemId: unknown, param: string, eventId: unknown): undefined {
    this.error(
      {
        status: 400,
        type: 'invalid_request_error',
        code: 'item_not_found',
        param,
        message: `Item with item_id '${String(itemId)}' not found.`,
      },
      eventId,
    );
  }

  // ── The session ───────────────────────────────────────────────────────────────

  private updateSession(update: unknown, eventId: unknown): undefined {
    const problem = checkSessionUpdate(update, this.session, this.audioSent);
    if (problem) return this.error(problem, eventId);
    this.session = applySessionUpdate(this.session, update as Obj);
    this.emit({ type: 'session.updated', session: this.session });
  }

  // ── Items ─────────────────────────────────────────────────────────────────────

  private itemProblem(item: unknown): NeutralError | undefined {
    const bad = (code: string, param: string, message: string): NeutralError => ({
      status: 400,
      type: 'invalid_request_error',
      code,
      param,
      message,
    });
    if (!isObject(item))
      return bad('missing_required_parameter', 'item', "Missing required parameter: 'item'.");
    const types = ['message', 'function_call', 'function_call_output'];
    if (!types.includes(item.type))
      return bad(
        'invalid_value',
        'item.type',
        `Invalid value: '${String(item.type)}'. Supported values are: ${types.map((t) => `'${t}'`).join(', ')}.`,
      );
    if (item.id !== undefined && this.items.some((i) => i.id === item.id))
      return bad('item_already_exists', 'item.id', `Item with item_id '${item.id}' already exists.`);
    if (item.type === 'message') {
      const parts: Record<string, string[]> = {
        user: ['input_text', 'input_audio', 'input_image'],
        system: ['input_text'],
        assistant: ['output_text', 'output_audio'],
      };
      const allowed = parts[item.role];
      if (!allowed)
        return bad(
          'invalid_value',
          'item.role',
          `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', and 'system'.`,
        );
      if (!Array.isArray(item.content))
        return bad(
          'missing_required_parameter',
          'item.content',
          "Missing required parameter: 'item.content'.",
        );
      for (const [i, part] of item.content.entries())
        if (!allowed.includes(part?.type))
          return bad(
            'invalid_value',
            `item.content[${i}].type`,
            `Invalid value: '${String(part?.type)}'. Supported values are: ${allowed.map((t) => `'${t}'`).join(', ')}.`,
          );
    }
    if (item.type === 'function_call_output') {
      if (typeof item.call_id !== 'string')
        return bad(
          'missing_required_parameter',
          'item.call_id',
          "Missing required parameter: 'item.call_id'.",
        );
      if (typeof item.output !== 'string')
        return bad('missing_required_parameter', 'item.output', "Missing required parameter: 'item.output'.");
    }
    if (item.type === 'function_call') {
      for (const f of ['call_id', 'name', 'arguments'])
        if (typeof item[f] !== 'string')
          return bad('missing_required_parameter', `item.${f}`, `Missing required parameter: 'item.${f}'.`);
    }
    return undefined;
  }

  private createItem(event: Obj, eventId: unknown): undefined {
    const problem = this.itemProblem(event.item);
    if (problem) return this.error(problem, eventId);
    const previous = event.previous_item_id;
    let at = this.items.length;
    if (previous === 'root') at = 0;
    else if (typeof previous === 'string') {
      const i = this.items.findIndex((it) => it.id === previous);
      if (i < 0) return this.notFound(previous, 'previous_item_id', eventId);
      at = i + 1;
    }
    const item: Item = {
      ...event.item,
      id: event.item.id ?? this.ids.next('item'),
      object: 'realtime.item',
      status: 'completed',
    };
    // A user's audio part without a transcript is heard as the fixtures' next user turn, as a commit is.
    if (item.role === 'user')
      item.content = item.content.map((part: Obj) =>
        part?.type === 'input_audio' && typeof part.transcript !== 'string'
          ? {
              ...part,
              transcript: this.services.heard(
                conversationOf(
                  this.session,
                  [...this.items.slice(0, at), { ...item, content: [] }],
                  this.session.tools,
                ),
              ),
            }
          : part,
      );
    this.items.splice(at, 0, item);
    this.noteItem(item);
    const previous_item_id = at === 0 ? null : this.items[at - 1].id;
    this.emit({ type: 'conversation.item.added', previous_item_id, item });
    this.emit({ type: 'conversation.item.done', previous_item_id, item });
  }

  /** A user's message or a tool's output the client added, for the session's evidence. */
  private noteItem(item: Item): void {
    if (item.type === 'function_call_output') {
      this.services.note?.({ kind: 'tool output', callId: item.call_id, output: item.output });
      return;
    }
    if (item.type !== 'message' || item.role !== 'user') return;
    const parts: Obj[] = item.content;
    const spoken = parts.some((p) => p?.type === 'input_audio');
    const texts = parts
      .map((p) => (p?.type === 'input_audio' ? p.transcript : p?.type === 'input_text' ? p.text : null))
      .filter((t): t is string => typeof t === 'string');
    this.services.note?.({
      kind: 'user',
      via: spoken ? 'audio' : 'text',
      text: texts.length > 0 ? texts.join(' ') : null,
    });
  }

  /**
   * The client stopped playing the assistant's audio at `audio_end_ms` (the user interrupted):
   * the item keeps the audio up to there and the transcript spoken in it, and the model call's
   * evidence is what the user heard.
   */
  private truncate(event: Obj, eventId: unknown): undefined {
    const item = this.items.find((i) => i.id === event.item_id);
    if (!item) return this.notFound(event.item_id, 'item_id', eventId);
    const part = Array.isArray(item.content) ? item.content[event.content_index ?? 0] : undefined;
    if (item.role !== 'assistant' || part?.type !== 'output_audio')
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'item_id',
          message: 'Only assistant messages with audio can be truncated.',
        },
        eventId,
      );
    const end = event.audio_end_ms;
    const transcript = String(part.transcript ?? '');
    const spoken = this.spoken.get(item.id);
    // The audio that went out (its transcript may lag it), and the text it speaks.
    const total = Math.round(this.audioOut.get(item.id) ?? transcript.length * MS_PER_CHAR);
    const said = spoken?.outcome.reply.content ?? transcript;
    if (!Number.isInteger(end) || end < 0)
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'audio_end_ms',
          message: `Invalid 'audio_end_ms': expected a non-negative integer, but got ${JSON.stringify(end)} instead.`,
        },
        eventId,
      );
    if (end > total)
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'audio_end_ms',
          message: `Audio content of ${total}ms is already shorter than ${end}ms`,
        },
        eventId,
      );
    const heard = said.slice(0, heardChars(end));
    part.transcript = heard;
    if (spoken && heard.length < said.length) {
      const reached: NeutralReply = { ...spoken.reply, content: heard === '' ? null : heard, toolCalls: [] };
      spoken.outcome.cut('aborted', reached, { delivered: spoken.delivered, of: spoken.of });
    }
    if (heard.length < said.length)
      this.services.note?.({
        kind: 'truncated',
        heardMs: end,
        heardChars: heard.length,
        ofChars: said.length,
        turn: spoken?.outcome,
      });
    this.emit({
      type: 'conversation.item.truncated',
      item_id: item.id,
      content_index: event.content_index ?? 0,
      audio_end_ms: end,
    });
  }

  // ── Input audio ───────────────────────────────────────────────────────────────

  private append(event: Obj, eventId: unknown): undefined {
    if (typeof event.audio !== 'string')
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'missing_required_parameter',
          param: 'audio',
          message: "Missing required parameter: 'audio'.",
        },
        eventId,
      );
    const audio = fromBase64(event.audio);
    const format: AudioFormat = this.session.audio.input.format;
    const ms = durationMs(audio.byteLength, format);
    const start = this.inputMs;
    this.inputMs += ms;
    this.buffer.chunks.push(event.audio);
    this.buffer.bytes += audio.byteLength;
    this.buffer.ms += ms;
    const vad = this.session.audio.input.turn_detection;
    if (!vad) return;
    const silent = isSilence(audio, format);
    if (!this.buffer.speaking) {
      if (silent) {
        // Silence before speech is not kept for the turn.
        this.buffer = { chunks: [], bytes: 0, ms: 0, speaking: false, silentMs: 0 };
        return;
      }
      this.buffer.speaking = true;
      this.buffer.itemId = this.ids.next('item');
      this.emit({
        type: 'input_audio_buffer.speech_started',
        audio_start_ms: Math.floor(start),
        item_id: this.buffer.itemId,
      });
      // Barge-in: the user speaks over the response.
      if (this.active && vad.interrupt_response) this.cancel('turn_detected');
      return;
    }
    if (!silent) {
      this.buffer.silentMs = 0;
      return;
    }
    this.buffer.silentMs += ms;
    if (this.buffer.silentMs < (vad.silence_duration_ms ?? 500)) return;
    this.emit({
      type: 'input_audio_buffer.speech_stopped',
      audio_end_ms: Math.floor(this.inputMs),
      item_id: this.buffer.itemId,
    });
    this.commit();
    // A turn that ends while the model still answers the last one is answered after it.
    if (vad.create_response) {
      if (this.active) this.queued = true;
      else void this.respond({}, undefined);
    }
  }

  /**
   * The buffer becomes the user's audio message. Its transcript is what the fixtures have the
   * user say next (audio is matched by its transcript), carried by the transcription events.
   */
  private commit(): undefined {
    const id = this.buffer.itemId ?? this.ids.next('item');
    const { chunks } = this.buffer;
    this.buffer = { chunks: [], bytes: 0, ms: 0, speaking: false, silentMs: 0 };
    const previous_item_id = this.items.at(-1)?.id ?? null;
    this.emit({ type: 'input_audio_buffer.committed', previous_item_id, item_id: id });
    const item: Item = {
      id,
      type: 'message',
      object: 'realtime.item',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_audio', transcript: null }],
    };
    const pending = conversationOf(this.session, [...this.items, item], this.session.tools);
    // Sent as it is now: emit writes it out before its transcript is filled in.
    this.emit({ type: 'conversation.item.added', previous_item_id, item });
    const input = this.session.audio.input;
    const digest = spokenDigest(chunks);
    // Record and live modes: the provider hears the audio, and its transcript is the user's turn.
    const transcribed = this.services.transcribe?.(
      { chunks, digest, format: input.format, transcription: input.transcription, id },
      pending,
    );
    if (!transcribed) return this.heardAs(item, previous_item_id, this.services.heard(pending, digest));
    this.items.push(item);
    const hearing = transcribed.then((transcript) => {
      if (this.hearing === hearing) this.hearing = undefined;
      if (transcript === null)
        this.unheard = {
          status: 400,
          type: 'invalid_request_error',
          code: 'input_audio_transcription_missing',
          message: 'The provider gave no transcript of the spoken turn, so it cannot be recorded.',
        };
      this.heardAs(item, previous_item_id, transcript, false);
    });
    this.hearing = hearing;
  }

  /** The spoken item's transcript is known: the item is done, and the transcription events carry it. */
  private heardAs(
    item: Item,
    previous_item_id: string | null,
    transcript: string | null,
    add = true,
  ): undefined {
    const id = item.id;
    item.content[0].transcript = transcript;
    if (add) this.items.push(item);
    this.services.note?.({ kind: 'user', via: 'audio', text: transcript });
    this.emit({ type: 'conversation.item.done', previous_item_id, item });
    if (!this.session.audio.input.transcription) return;
    if (transcript === null) {
      this.emit({
        type: 'conversation.item.input_audio_transcription.failed',
        item_id: id,
        content_index: 0,
        error: {
          type: 'transcription_error',
          code: 'audio_unintelligible',
          message: 'No fixture has the user say anything at this point.',
          param: null,
        },
      });
      return;
    }
    this.emit({
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: id,
      content_index: 0,
      delta: transcript,
    });
    this.emit({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: id,
      content_index: 0,
      transcript,
      usage: { type: 'duration', seconds: 1 },
    });
  }

  // ── Responses ─────────────────────────────────────────────────────────────────

  private async respond(params: Obj, eventId: unknown): Promise<void> {
    if (this.hearing) await this.hearing;
    if (this.unheard) {
      const unheard = this.unheard;
      this.unheard = undefined;
      return this.error(unheard, eventId, false);
    }
    if (this.active)
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'conversation_already_has_active_response',
          message: `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`,
        },
        eventId,
      );
    const session = this.session;
    const modalities = params.output_modalities ?? session.output_modalities;
    if (!Array.isArray(modalities) || modalities.length !== 1 || !['text', 'audio'].includes(modalities[0]))
      return this.error(
        {
          status: 400,
          type: 'invalid_request_error',
          code: 'invalid_value',
          param: 'response.output_modalities',
          message: `Invalid modalities: ${JSON.stringify(modalities)}. Supported combinations are: ["text"] and ["audio"].`,
        },
        eventId,
      );
    const outOfBand = params.conversation === 'none';
    let context = this.items;
    if (Array.isArray(params.input)) {
      context = [];
      for (const entry of params.input) {
        if (entry?.type === 'item_reference') {
          const found = this.items.find((i) => i.id === entry.id);
          if (!found) return this.notFound(entry.id, 'response.input', eventId);
          context.push(found);
        } else context.push({ id: entry?.id ?? this.ids.next('item'), ...entry });
      }
    }
    const tools: Obj[] = params.tools ?? session.tools;
    const effective = { ...session, instructions: params.instructions ?? session.instructions };
    const conversation = conversationOf(effective, context, tools);
    const request = {
      type: 'response.create',
      model: session.model,
      instructions: effective.instructions,
      tools,
      tool_choice: params.tool_choice ?? session.tool_choice,
      output_modalities: modalities,
      max_output_tokens: params.max_output_tokens ?? session.max_output_tokens,
      input: context,
    };
    const active: Active = {
      id: this.ids.next('resp'),
      controller: new AbortController(),
      sent: [],
      live: new Map(),
      outOfBand,
    };
    this.active = active;
    const response = {
      object: 'realtime.response',
      id: active.id,
      status: 'in_progress',
      status_details: null,
      output: [],
      conversation_id: outOfBand ? null : this.conversationId,
      output_modalities: modalities,
      max_output_tokens: request.max_output_tokens,
      audio: { output: { format: session.audio.output.format, voice: session.audio.output.voice } },
      usage: null,
      metadata: params.metadata ?? null,
    };
    this.emit({ type: 'response.created', response });
    let outcome: TurnOutcome;
    try {
      outcome = await this.services.answer(conversation, { signal: active.controller.signal, request });
    } catch (error) {
      outcome = {
        kind: 'error',
        error: {
          status: 500,
          type: 'server_error',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
    if (this.active !== active || this.closed) {
      if (outcome.kind === 'reply') outcome.cut('aborted', undefined, { delivered: 0, of: 0 });
      return;
    }
    if (outcome.kind === 'drop') {
      this.active = undefined;
      this.closed = true;
      this.peer.drop();
      return;
    }
    if (outcome.kind === 'error') return this.fail(response, outcome.error, eventId);
    if (active.cancelled) {
      outcome.cut('aborted', undefined, { delivered: 0, of: 0 });
      return this.finish(active, response, 'cancelled');
    }
    await this.play(active, outcome, modalities, params, context, response);
  }

  /** The response failed: the API's `error` event, then `response.done` with status `failed`. */
  private fail(response: Obj, error: NeutralError, eventId: unknown): undefined {
    if (error.status === 429) this.emit({ type: 'rate_limits.updated', rate_limits: RATE_LIMITS(0) });
    this.error(error, eventId, false);
    this.active = undefined;
    this.emit({
      type: 'response.done',
      response: {
        ...response,
        status: 'failed',
        status_details: {
          type: 'failed',
          error: { type: error.type, code: error.code ?? null, message: error.message },
        },
      },
    });
    this.next();
  }

  private async play(
    active: Active,
    outcome: Extract<TurnOutcome, { kind: 'reply' }>,
    modalities: Array<'text' | 'audio'>,
    params: Obj,
    context: readonly Item[],
    response: Obj,
  ): Promise<void> {
    const { shaping } = outcome;
    const plan = planResponse(outcome.reply, {
      responseId: active.id,
      conversationId: this.conversationId,
      previousItemId: active.outOfBand ? null : (context.at(-1)?.id ?? null),
      modalities,
      format: this.session.audio.output.format,
      voice: this.session.audio.output.voice,
      maxOutputTokens: response.max_output_tokens,
      metadata: params.metadata,
      ...(shaping.chunkSize !== undefined && { chunkSize: shaping.chunkSize }),
      outOfBand: active.outOfBand,
      ids: this.ids,
    });
    active.outcome = outcome;
    // response.created went out already; response.done is sent by finish.
    const events = plan.events.slice(1);
    active.plan = { events, response: plan.response };
    const of = events.length + 1;
    const cutAt =
      shaping.truncateAfterChunks ?? (shaping.disconnect ? Math.ceil(events.length / 2) : undefined);
    const malformedAt = shaping.malformed ? Math.floor(events.length / 2) : -1;
    for (let i = 0; i < events.length; i++) {
      if (i > 0 && shaping.chunkDelay) {
        try {
          await this.services.sleep(shaping.chunkDelay, active.controller.signal);
        } catch {
          return; // cancelled, or the client went away: who stopped it has ended the response
        }
      }
      if (this.active !== active || this.closed) return;
      if (cutAt !== undefined && i >= cutAt) {
        outcome.cut(
          shaping.truncateAfterChunks !== undefined ? 'truncated' : 'disconnected',
          replyReached(active.sent, outcome.reply),
          { delivered: active.sent.length + 1, of },
        );
        this.active = undefined;
        this.closed = true;
        this.peer.drop();
        return;
      }
      const event = events[i];
      if (i === malformedAt) {
        this.events++;
        this.peer.send(JSON.stringify({ event_id: `event_${this.events}`, ...event }).slice(0, 40));
        const reached = [...active.sent];
        active.sent.push(event);
        outcome.cut('malformed', replyReached([...reached, ...events.slice(i + 1)], outcome.reply), {
          delivered: of - 1,
          of,
        });
        this.track(active, event);
        continue;
      }
      this.emit(event);
      active.sent.push(event);
      this.track(active, event);
    }
    if (outcome.streamError) {
      const error: NeutralError = {
        status: 500,
        type: outcome.streamError.type ?? 'server_error',
        message: outcome.streamError.message,
        ...(outcome.streamError.code && { code: outcome.streamError.code }),
      };
      outcome.cut('stream_error', replyReached(active.sent, outcome.reply), {
        delivered: active.sent.length + 1,
        of,
      });
      this.fail(plan.response, error, undefined);
      return;
    }
    for (const [id, item] of active.live)
      if (item.role === 'assistant' && item.content?.[0]?.type === 'output_audio')
        this.spoken.set(id, { reply: outcome.reply, outcome, delivered: of, of });
    this.finish(active, plan.response, 'completed');
  }

  /** Keeps the conversation's items as the response's events build them. */
  private track(active: Active, event: PlannedEvent): undefined {
    switch (event.type) {
      case 'response.output_item.added': {
        const item = copyItem(event.item);
        active.live.set(item.id, item);
        if (!active.outOfBand) this.items.push(item);
        break;
      }
      case 'response.content_part.added': {
        const item = active.live.get(event.item_id);
        if (item)
          item.content = [
            event.part.type === 'audio'
              ? { type: 'output_audio', transcript: '' }
              : { type: 'output_text', text: '' },
          ];
        break;
      }
      case 'response.output_audio.delta': {
        this.audioSent = true;
        const bytes = Buffer.byteLength(event.delta, 'base64');
        const ms = durationMs(bytes, this.session.audio.output.format);
        this.audioOut.set(event.item_id, (this.audioOut.get(event.item_id) ?? 0) + ms);
        break;
      }
      case 'response.output_audio_transcript.delta':
      case 'response.output_text.delta': {
        const part = active.live.get(event.item_id)?.content?.[0];
        if (part?.type === 'output_audio') part.transcript += event.delta;
        else if (part) part.text += event.delta;
        break;
      }
      case 'response.function_call_arguments.delta': {
        const item = active.live.get(event.item_id);
        if (item) item.arguments += event.delta;
        break;
      }
      case 'response.output_item.done': {
        const item = active.live.get(event.item.id);
        if (item) Object.assign(item, copyItem(event.item));
        break;
      }
    }
  }

  private cancel(reason: 'client_cancelled' | 'turn_detected'): undefined {
    const active = this.active;
    if (!active) return;
    active.cancelled = reason;
    this.services.note?.({
      kind: 'interrupted',
      by: reason === 'turn_detected' ? 'user' : 'client',
      turn: active.outcome,
    });
    active.controller.abort();
    // Before the model answered: `respond` ends it when the answer comes back.
    if (!active.outcome || !active.plan) return;
    this.stop('aborted');
  }

  /** Ends the response in progress where it stands: its evidence is what reached the client. */
  private stop(reason: CutReason): undefined {
    const active = this.active;
    if (!active?.outcome || !active.plan) {
      this.active = undefined;
      return;
    }
    const { outcome, plan } = active;
    const of = plan.events.length + 1;
    if (active.sent.length < plan.events.length)
      outcome.cut(reason, replyReached(active.sent, outcome.reply), {
        delivered: active.sent.length + 1,
        of,
      });
    for (const [id, item] of active.live) {
      if (item.status === 'in_progress') item.status = 'incomplete';
      if (item.role === 'assistant' && item.content?.[0]?.type === 'output_audio')
        this.spoken.set(id, {
          reply: replyReached(active.sent, outcome.reply),
          outcome,
          delivered: active.sent.length + 1,
          of,
        });
    }
    if (this.closed) {
      this.active = undefined;
      return;
    }
    this.finish(active, { ...plan.response, output: [...active.live.values()] }, 'cancelled');
  }

  private finish(active: Active, response: Obj, status: 'completed' | 'cancelled'): undefined {
    this.active = undefined;
    this.emit({
      type: 'response.done',
      response: {
        ...response,
        status,
        status_details:
          status === 'cancelled'
            ? { type: 'cancelled', reason: active.cancelled ?? 'client_cancelled' }
            : null,
      },
    });
    if (status === 'completed') this.emit({ type: 'rate_limits.updated', rate_limits: RATE_LIMITS(39000) });
    this.next();
  }

  /** A response ended: the spoken turn waiting for it is answered now. */
  private next(): undefined {
    if (!this.queued || this.active || this.closed) return;
    this.queued = false;
    void this.respond({}, undefined);
  }
}

/**
 * A response's item, for the conversation to change apart from the planned events (its status,
 * text and arguments grow as they go out): the item and its content parts, the only levels a
 * planned item has.
 */
function copyItem(item: Item): Item {
  return Array.isArray(item.content)
    ? { ...item, content: item.content.map((part: Obj) => ({ ...part })) }
    : { ...item };
}
