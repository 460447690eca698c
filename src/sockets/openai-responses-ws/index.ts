/**
 * The Responses API's WebSocket mode (`wss://api.openai.com/v1/responses`). Each `response.create`
 * the client sends is one `POST /responses` (its body, streamed), served through the file's HTTP
 * pipeline, and each event of that SSE stream goes back as one message. Turns run one at a time,
 * in the order they arrived.
 *
 * Continuation: `previous_response_id` with only the new input items. A stored response chains as
 * over HTTP (the file's store); the connection also keeps its most recent response in memory, so
 * one made with `store: false` chains on the same connection (only the latest, only there), as
 * the API's connection-local cache does. A turn that fails evicts it.
 */
import type {
  SocketConnection,
  SocketData,
  SocketOpening,
  SocketPeer,
  SocketProtocol,
  SocketServices,
} from '../protocol';
import { errorEvent, turnError } from './errors';
import { SseFrames } from './sse-frames';

/**
 * The connection's latest response, as the next turn needs it to chain when it was not stored.
 * Its id and items are read from its `response.completed` event when a turn first asks for them:
 * a turn that does not chain from it never parses that event.
 */
class Latest {
  private read: { id: string | undefined; items: unknown[] } | undefined;

  constructor(
    readonly stored: boolean,
    private readonly made: () => { id: string | undefined; items: unknown[] },
  ) {}

  /** Undefined when its completed event did not parse (a damaged chunk): no turn chains from it. */
  get id(): string | undefined {
    this.read ??= this.made();
    return this.read.id;
  }

  /** The whole input that produced it (earlier turns expanded), then its output items. */
  get items(): unknown[] {
    this.read ??= this.made();
    return this.read.items;
  }
}

/** One `response.create`: the body of a POST /responses, streamed. */
type Body = Record<string, unknown>;

class ResponsesSocket implements SocketConnection {
  private queue: Promise<void> = Promise.resolve();
  private latest: Latest | undefined;
  private readonly gone = new AbortController();
  /** The headers of each turn's call. */
  private readonly callHeaders: Record<string, string>;

  constructor(
    private readonly opening: SocketOpening,
    private readonly peer: SocketPeer,
    private readonly services: SocketServices,
  ) {
    this.callHeaders = callHeadersOf(opening.headers());
  }

  message(data: SocketData): void {
    if (this.gone.signal.aborted) return;
    const event = parseEvent(data);
    if ('error' in event) {
      this.peer.send(JSON.stringify(event.error));
      return;
    }
    // Registered in the message's async context: the turn's model call belongs to its run.
    this.queue = this.queue.then(() => this.turn(event.body)).catch(() => this.peer.drop());
  }

  closed(): void {
    this.gone.abort();
  }

  private async turn(create: Body): Promise<void> {
    if (this.gone.signal.aborted) return;
    if (create.background === true)
      return this.fail(
        turnError(
          400,
          'invalid_request_error',
          'background is not supported in WebSocket mode.',
          'background',
        ),
      );
    const { stream: _stream, background: _background, ...fields } = create;
    const body: Body = { ...fields, stream: true };
    this.noteInput(body.input);
    const chained = this.unstoredChain(body);
    // Each turn's request follows the connection's end through a signal of its own: a Request
    // given the connection's signal would leave a listener on it for every turn of the socket.
    const turn = new AbortController();
    const abort = () => turn.abort(this.gone.signal.reason);
    this.gone.signal.addEventListener('abort', abort, { once: true });
    try {
      await this.serve(body, chained, turn.signal);
    } finally {
      this.gone.signal.removeEventListener('abort', abort);
    }
  }

  private async serve(body: Body, chained: Body | undefined, signal: AbortSignal): Promise<void> {
    const answer = await this.services.call({
      body: JSON.stringify(chained ?? body),
      headers: this.callHeaders,
      signal,
    });
    if (!answer)
      return this.fail(turnError(404, 'invalid_request_error', `Nothing serves ${this.opening.url.href}.`));
    const turn = new TurnEvents(this, body, chained);
    if (answer.kind === 'events') {
      const { events } = answer;
      let sent = 0;
      // What went out so far, for a run that ends while the turn is still going.
      events.progress = () => sent;
      for (let at = 0; at < events.count; at++) {
        const delay = events.delay(at);
        if (delay > 0) await this.services.sleep(delay, signal).catch(() => undefined);
        if (signal.aborted) {
          events.stopped(at);
          events.progress = undefined;
          return this.cutShort();
        }
        sent = at + 1;
        turn.push(events.event(at));
      }
      events.progress = undefined;
      // A stream that fails midway (a disconnect fault): the socket drops with it.
      if (events.fails) return this.cutShort();
      return turn.end();
    }
    const { response } = answer;
    if (!response.ok || !response.body) return this.fail(await errorEvent(response));
    // Decoded here rather than through a TextDecoderStream: the stream's end costs an error object.
    const reader = response.body.getReader();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        // The stream was cut (a fixture's truncation, a chaos drop): the socket drops with it.
        return this.cutShort();
      }
      if (chunk.done) break;
      turn.push(chunk.value);
    }
    turn.end();
  }

  /** The turn's stream broke off: the connection forgets its latest response and drops, unless the client left. */
  private cutShort(): void {
    this.forget();
    if (!this.gone.signal.aborted) this.peer.drop();
  }

  /** The connection's latest response is not one to chain from (a turn failed). */
  forget(): void {
    this.latest = undefined;
  }

  send(data: string): void {
    this.peer.send(data);
  }

  /** The turn's new input, for the session's evidence: the user's text opens a turn, tool outputs go to theirs. */
  private noteInput(input: unknown): void {
    let texts: string[] = [];
    for (const item of inputItems(input) as Array<Record<string, any> | null>) {
      if (item?.type === 'function_call_output' && typeof item.call_id === 'string')
        this.services.note?.({ kind: 'tool output', callId: item.call_id, output: item.output });
      else if (item?.role === 'user' && (item.type === undefined || item.type === 'message'))
        texts.push(...textsOf(item.content));
      // Input that replays the conversation: only the user's messages after its last other item are new.
      else if (item?.role !== 'system' && item?.role !== 'developer') texts = [];
    }
    if (texts.length > 0) this.services.note?.({ kind: 'user', via: 'text', text: texts.join(' ') });
  }

  /**
   * A chain from the connection's latest response when that one was not stored: the request goes
   * out with the whole input (the latest's, then the new items) in place of the id, as the
   * API's connection-local cache lets it. Undefined when the id chains the usual way.
   */
  private unstoredChain(body: Body): Body | undefined {
    const previous = body.previous_response_id;
    const latest = this.latest;
    if (typeof previous !== 'string' || !latest || latest.stored || latest.id !== previous) return undefined;
    const { previous_response_id: _id, ...rest } = body;
    return { ...rest, input: [...latest.items, ...inputItems(body.input)] };
  }

  /** The turn completed with `completed` (its event's response, parsed when first needed). */
  remember(body: Body, chained: Body | undefined, completed: () => Record<string, any> | undefined): void {
    // What came before it, taken now: the response after this one must not hold on to it.
    const earlier =
      chained !== undefined
        ? inputItems(chained.input)
        : typeof body.previous_response_id === 'string' && this.latest?.id === body.previous_response_id
          ? [...this.latest.items, ...inputItems(body.input)]
          : inputItems(body.input);
    this.latest = new Latest(body.store !== false, () => {
      const response = completed();
      const output = Array.isArray(response?.output) ? response.output : [];
      return { id: response === undefined ? undefined : String(response.id), items: [...earlier, ...output] };
    });
  }

  private fail(error: unknown): void {
    this.latest = undefined;
    this.peer.send(JSON.stringify(error));
  }
}

/**
 * A turn's stream as it reaches the socket, chunk by chunk (events, or the bytes of an HTTP body):
 * each SSE event goes out as one message; the completed response is kept for the next turn's chain.
 */
class TurnEvents {
  private readonly frames = new SseFrames();
  private decoder: TextDecoder | undefined;
  /** The `response.completed` event's data, and the event once parsed. */
  private completed: { data: string; event?: Record<string, any> } | undefined;

  constructor(
    private readonly socket: ResponsesSocket,
    private readonly body: Body,
    private readonly chained: Body | undefined,
  ) {}

  push(chunk: string | Uint8Array): void {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    else {
      this.decoder ??= new TextDecoder();
      text = this.decoder.decode(chunk, { stream: true });
    }
    const { socket, body, chained } = this;
    for (const { type, data } of this.frames.push(text)) {
      // An event named on its `event:` line is parsed only when it matters.
      const event = chained || type === undefined ? jsonOf(data) : undefined;
      const kind = type ?? event?.type;
      if (kind === 'response.completed') this.completed = { data, ...(event !== undefined && { event }) };
      if (kind === 'response.failed' || kind === 'error') socket.forget();
      socket.send(chained && event ? JSON.stringify(relinked(event, body)) : data);
    }
  }

  end(): void {
    const { completed } = this;
    if (completed)
      this.socket.remember(
        this.body,
        this.chained,
        () => (completed.event ?? jsonOf(completed.data))?.response,
      );
  }
}

/** The upgrade's headers, as the client would send them with a POST (no WebSocket handshake ones). */
function callHeadersOf(upgrade: Headers): Record<string, string> {
  const headers: Record<string, string> = {};
  upgrade.forEach((value, name) => {
    if (!/^(sec-websocket-|upgrade$|connection$|host$|content-length$|content-type$)/.test(name))
      headers[name] = value;
  });
  headers['content-type'] = 'application/json';
  return headers;
}

function parseEvent(data: SocketData): { body: Body } | { error: unknown } {
  const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
  const event = jsonOf(text);
  if (event === undefined || event === null || typeof event !== 'object' || Array.isArray(event))
    return { error: turnError(400, 'invalid_request_error', 'The message is not a JSON object.') };
  if (event.type !== 'response.create')
    return {
      error: turnError(
        400,
        'invalid_request_error',
        `Unsupported event type ${JSON.stringify(event.type)}: this socket takes response.create events.`,
        'type',
      ),
    };
  const { type: _type, ...body } = event as Body;
  return { body };
}

/** A response's events as the client asked for it: `previous_response_id` and its own input, not the expanded chain. */
function relinked(event: Record<string, any>, body: Body): Record<string, any> {
  if (!event.response || typeof event.response !== 'object') return event;
  return { ...event, response: { ...event.response, previous_response_id: body.previous_response_id } };
}

/** `input` as items: a string is one user message. */
function inputItems(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/** A message's text: its content as a string, or its `input_text` parts. */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((p) => p?.type === 'input_text' && typeof p.text === 'string').map((p) => p.text);
}

function jsonOf(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const openaiResponsesWs: SocketProtocol = {
  protocol: 'openai.responses.ws',
  provider: 'openai',
  handles: (path) => path === '/responses',
  endpoints: ['GET /responses (WebSocket)'],
  open: (opening, peer, services) => new ResponsesSocket(opening, peer, services),
};
