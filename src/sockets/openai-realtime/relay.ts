/**
 * Record and live modes for a Realtime connection: one socket of the same protocol to the real
 * provider, opened with the client's URL, headers and subprotocols (its key among them). At each
 * turn it mirrors the session's settings (`session.update`), adds the items the client added since
 * the last turn (`conversation.item.create`: messages, function call outputs), asks for a response
 * and reads its events back into the neutral reply the client's session then serves.
 */
import type { Conversation } from '../../conversation';
import type { ReplyDecodeResult } from '../../providers/codec';
import type { SocketOpening, UpstreamConnector, UpstreamRelay } from '../protocol';
import { UnsendableTurn, UpstreamLink, upstreamHeaders } from '../upstream-link';
import { realtimeReplyOf } from './upstream-reply';

type Obj = Record<string, any>;

/** The subprotocol a browser client sends its key in. */
export const KEY_PROTOCOL = 'openai-insecure-api-key.';

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

  constructor(
    private readonly opening: SocketOpening,
    private readonly connect: UpstreamConnector,
  ) {
    this.keys = opening.protocols
      .filter((p) => p.startsWith(KEY_PROTOCOL))
      .map((p) => p.slice(KEY_PROTOCOL.length));
  }

  async turn(request: unknown, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult> {
    const r = request as Obj;
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
        if (event.type === 'error') return realtimeReplyOf([event], conversation.model);
        if (event.type === 'session.updated') break;
      }
      this.settings = JSON.stringify(settings);
    }
    for (const item of Array.isArray(r.input) ? (r.input as Obj[]) : []) {
      if (this.accounted.has(item.id)) continue;
      this.accounted.add(item.id);
      const sent = this.upstreamItem(item);
      if (sent) link.send({ type: 'conversation.item.create', item: sent });
    }
    link.send({
      type: 'response.create',
      response: Array.isArray(r.output_modalities) ? { output_modalities: r.output_modalities } : {},
    });
    const cancel = () => {
      try {
        link.send({ type: 'response.cancel' });
      } catch {
        // closed already: the read below ends
      }
    };
    signal.addEventListener('abort', cancel, { once: true });
    const events: Obj[] = [];
    try {
      for (;;) {
        let event: Obj;
        try {
          event = await link.next();
        } catch {
          break; // closed mid-response: what came is all there is
        }
        events.push(event);
        if (event.type === 'response.done') break;
        // Refused before it started: no response follows.
        if (event.type === 'error' && !events.some((e) => e.type === 'response.created')) break;
      }
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    const result = realtimeReplyOf(events, conversation.model);
    if (result.ok) {
      for (const call of result.reply.toolCalls) this.producedCalls.add(call.id);
      if (result.reply.content) this.producedTexts.add(result.reply.content);
    }
    return result;
  }

  close(): void {
    this.link?.close();
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
    if (item.type === 'message' && item.role === 'user')
      for (const part of item.content ?? [])
        if (part?.type === 'input_audio' && typeof part.audio !== 'string')
          throw new UnsendableTurn(
            'the user spoke this turn into the input audio buffer; spoken input is not sent to the provider: ' +
              'record the session with typed turns (conversation.item.create with input_text), and replay can speak them.',
          );
    const { id: _id, object: _object, status: _status, ...sent } = item;
    return sent;
  }
}
