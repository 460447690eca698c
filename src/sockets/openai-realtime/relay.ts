/**
 * Record and live modes for a Realtime connection: one socket of the same protocol to the real
 * provider, opened with the client's URL, headers and subprotocols (its key among them). At each
 * turn it mirrors the session's settings (`session.update`), adds the items the client added since
 * the last turn (`conversation.item.create`: messages, function call outputs), asks for a response
 * and reads its events back into the neutral reply the client's session then serves. A spoken
 * turn goes as the client's audio (`input_audio_buffer.append`, then `commit`), and the provider's
 * input transcription of it is the user's text the recording keeps.
 */
import type { Conversation } from '../../conversation';
import type { ReplyDecodeResult } from '../../providers/codec';
import type { SocketOpening, SpokenTurn, UpstreamConnector, UpstreamRelay } from '../protocol';
import {
  OneAtATime,
  TranscriptMissing,
  UnsendableTurn,
  UpstreamLink,
  upstreamHeaders,
} from '../upstream-link';
import { realtimeReplyOf } from './upstream-reply';

type Obj = Record<string, any>;

/** The subprotocol a browser client sends its key in. */
export const KEY_PROTOCOL = 'openai-insecure-api-key.';

/** The transcriber asked for when the client's session has none: a spoken turn is recorded by its words. */
const DEFAULT_TRANSCRIPTION = { model: 'gpt-4o-mini-transcribe' };

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text the model said in an assistant item (its text, or its audio's transcript). */
function saidIn(item: Obj): string {
  return (Array.isArray(item.content) ? item.content : [])
    .map((p: Obj) => p?.text ?? p?.transcript ?? '')
    .join('');
}

export class RealtimeRelay implements UpstreamRelay {
  readonly keys: string[];
  private link: UpstreamLink | undefined;
  private ready: Promise<void> | undefined;
  /** The client's items already in the provider's conversation, by id. */
  private readonly accounted = new Set<string>();
  /** What the provider's own responses added (its calls by id, its texts): not sent back to it. */
  private readonly producedCalls = new Set<string>();
  private readonly producedTexts = new Set<string>();
  private settings: string | undefined;
  private readonly operations = new OneAtATime();
  /** The client's socket closed, and this relay closed the provider's: a turn it ends fails nothing. */
  private closed = false;
  /** The `event_id`s the relay gave its client events, so an `error` is read as the one it names. */
  private sentEvents = 0;
  /** Cancels sent: one that reaches a response already done is refused, and that refusal cuts nothing. */
  private readonly cancels = new Set<string>();

  constructor(
    private readonly opening: SocketOpening,
    private readonly connect: UpstreamConnector,
  ) {
    this.keys = opening.protocols
      .filter((p) => p.startsWith(KEY_PROTOCOL))
      .map((p) => p.slice(KEY_PROTOCOL.length));
  }

  turn(request: unknown, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult> {
    return this.operations.run(() => this.turnNow(request as Obj, conversation, signal));
  }

  private async turnNow(r: Obj, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult> {
    const link = await this.open();
    const settings = {
      type: 'realtime',
      instructions: r.instructions ?? '',
      tools: r.tools ?? [],
      tool_choice: r.tool_choice ?? 'auto',
      ...(Array.isArray(r.output_modalities) && { output_modalities: r.output_modalities }),
      ...(typeof r.max_output_tokens === 'number' && { max_output_tokens: r.max_output_tokens }),
    };
    if (JSON.stringify(settings) !== this.settings) {
      link.send({ type: 'session.update', session: settings });
      for (;;) {
        const event = await link.next();
        if (this.isStale(event)) continue;
        if (event.type === 'error') return realtimeReplyOf([event], conversation.model);
        if (event.type === 'session.updated') break;
      }
      this.settings = JSON.stringify(settings);
    }
    const items = new Set<string>();
    for (const item of Array.isArray(r.input) ? (r.input as Obj[]) : []) {
      if (this.accounted.has(item.id)) continue;
      this.accounted.add(item.id);
      const sent = this.upstreamItem(item);
      if (!sent) continue;
      const event_id = this.eventId();
      items.add(event_id);
      link.send({ type: 'conversation.item.create', event_id, item: sent });
    }
    link.send({
      type: 'response.create',
      event_id: this.eventId(),
      response: Array.isArray(r.output_modalities) ? { output_modalities: r.output_modalities } : {},
    });
    const cancel = () => {
      const event_id = this.eventId();
      this.cancels.add(event_id);
      try {
        link.send({ type: 'response.cancel', event_id });
      } catch {
        // closed already: the read below ends
      }
    };
    signal.addEventListener('abort', cancel, { once: true });
    const events: Obj[] = [];
    // An item the provider refused: its response still comes, without the item, and is read to its
    // end so that the next turn does not take it for its own; the turn is the refusal.
    let refusedItem: Obj | undefined;
    try {
      for (;;) {
        let event: Obj;
        try {
          event = await link.next();
        } catch (closed) {
          // Closed before the response began: the close (its code, its reason) is the failure.
          if (!this.closed && !events.some((e) => e.type === 'response.created')) throw closed;
          break; // closed mid-response: what came is all there is
        }
        if (this.isStale(event)) continue;
        if (event.type === 'error' && items.has(event.error?.event_id)) {
          refusedItem ??= event;
          continue;
        }
        events.push(event);
        if (event.type === 'response.done') break;
        // Refused before it started: no response follows.
        if (event.type === 'error' && !events.some((e) => e.type === 'response.created')) break;
      }
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    if (refusedItem) return realtimeReplyOf([refusedItem], conversation.model);
    const result = realtimeReplyOf(events, conversation.model);
    if (result.ok) {
      for (const call of result.reply.toolCalls) this.producedCalls.add(call.id);
      if (result.reply.content) this.producedTexts.add(result.reply.content);
    }
    return result;
  }

  /**
   * The user's audio, appended and committed upstream in the session's input format, with input
   * transcription on (the client's own setting, else a default transcriber). The provider's own
   * turn detection is off: the client's commit (or the session's turn detection, which replay
   * hears the same way) ends the turn, and the relay asks for the response at the next turn.
   */
  hear(speech: SpokenTurn): Promise<string> {
    return this.operations.run(() => this.hearNow(speech));
  }

  private async hearNow(speech: SpokenTurn): Promise<string> {
    const link = await this.open();
    const transcription = isObject(speech.transcription) ? speech.transcription : DEFAULT_TRANSCRIPTION;
    link.send({
      type: 'session.update',
      session: {
        type: 'realtime',
        audio: { input: { format: speech.format, transcription, turn_detection: null } },
      },
    });
    for (;;) {
      const event = await link.next();
      if (this.isStale(event)) continue;
      if (event.type === 'error')
        throw new Error(String(event.error?.message ?? 'the session update was refused'));
      if (event.type === 'session.updated') break;
    }
    for (const audio of speech.chunks) link.send({ type: 'input_audio_buffer.append', audio });
    link.send({ type: 'input_audio_buffer.commit' });
    let itemId: string | undefined;
    for (;;) {
      const event = await link.next();
      if (this.isStale(event)) continue;
      if (event.type === 'error') throw new Error(String(event.error?.message ?? 'the audio was refused'));
      if (event.type === 'input_audio_buffer.committed') itemId = event.item_id;
      if (event.item_id !== itemId || itemId === undefined) continue;
      if (event.type === 'conversation.item.input_audio_transcription.failed')
        throw new TranscriptMissing(
          `the provider could not transcribe it (${String(event.error?.message ?? event.error?.code ?? 'no reason given')}); ` +
            `check session.audio.input.transcription (${JSON.stringify(transcription)}) names a transcription model the provider offers`,
        );
      if (event.type === 'conversation.item.input_audio_transcription.completed') {
        const transcript = typeof event.transcript === 'string' ? event.transcript.trim() : '';
        if (transcript === '')
          throw new TranscriptMissing(
            'its input transcription came back empty; turn on session.audio.input.transcription with a model that hears this audio, and check the audio is speech in session.audio.input.format',
          );
        if (speech.id !== undefined) this.accounted.add(speech.id);
        return transcript;
      }
    }
  }

  close(): void {
    this.closed = true;
    this.link?.close();
  }

  private eventId(): string {
    this.sentEvents += 1;
    return `event_understudy_${this.sentEvents}`;
  }

  /** The refusal of a cancel that reached its response after it ended: nothing of a turn. */
  private isStale(event: Obj): boolean {
    return event.type === 'error' && this.cancels.has(event.error?.event_id);
  }

  /** Opens the provider's socket on the first turn, and waits for its `session.created`. */
  private open(): Promise<UpstreamLink> {
    this.ready ??= (async () => {
      const link = new UpstreamLink(this.connect, {
        url: this.opening.url.href,
        headers: upstreamHeaders(this.opening.headers()),
        protocols: [...this.opening.protocols],
      });
      this.link = link;
      await link.opened;
      for (;;) {
        const event = await link.next();
        if (event.type === 'session.created') return;
        if (event.type === 'error')
          throw new Error(String(event.error?.message ?? 'the session was refused'));
      }
    })();
    return this.ready.then(() => this.link as UpstreamLink);
  }

  /**
   * A client's item as the provider gets it, or undefined for one already in its conversation:
   * the provider's own answer (a call of its, its text) comes back in the client's history.
   */
  private upstreamItem(item: Obj): Obj | undefined {
    if (item.type === 'function_call') {
      if (this.producedCalls.has(item.call_id)) return undefined;
      const { call_id, name, arguments: args } = item;
      return { type: 'function_call', call_id, name, arguments: args };
    }
    if (item.type === 'message' && item.role === 'assistant') {
      const said = saidIn(item);
      if (this.producedTexts.has(said)) return undefined;
      // A spoken answer the fixtures gave (record-missing mode): the provider gets its words.
      return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: said }] };
    }
    const { id: _id, object: _object, status: _status, ...sent } = item;
    if (item.type === 'message' && item.role === 'user')
      sent.content = (item.content ?? []).map((part: Obj) => {
        if (part?.type !== 'input_audio' || typeof part.audio === 'string') return part;
        // A spoken turn the fixtures heard (record-missing mode): the provider gets its words.
        if (typeof part.transcript === 'string') return { type: 'input_text', text: part.transcript };
        throw new UnsendableTurn(
          'the user spoke this turn, and neither the provider nor a fixture heard it: it has no words to send',
        );
      });
    return sent;
  }
}
