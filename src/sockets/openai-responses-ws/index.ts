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

/** The connection's latest response, as the next turn needs it to chain when it was not stored. */
interface Latest {
  id: string;
  stored: boolean;
  /** The whole input that produced it (earlier turns expanded), then its output items. */
  items: unknown[];
}

/** One `response.create`: the body of a POST /responses, streamed. */
type Body = Record<string, unknown>;

class ResponsesSocket implements SocketConnection {
  private queue: Promise<void> = Promise.resolve();
  private latest: Latest | undefined;
  private readonly gone = new AbortController();

  constructor(
    private readonly opening: SocketOpening,
    private readonly peer: SocketPeer,
    private readonly services: SocketServices,
  ) {}

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
    const response = await this.services.request(
      new Request(this.httpUrl(), {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(chained ?? body),
        signal,
      }),
    );
    if (!response)
      return this.fail(turnError(404, 'invalid_request_error', `Nothing serves ${this.opening.url.href}.`));
    if (!response.ok || !response.body) return this.fail(await errorEvent(response));
    const frames = new SseFrames();
    // Decoded here rather than through a TextDecoderStream: the stream's end costs an error object.
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    let completed: Record<string, any> | undefined;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        // The stream was cut (a fixture's truncation, a chaos drop): the socket drops with it.
        this.latest = undefined;
        if (!this.gone.signal.aborted) this.peer.drop();
        return;
      }
      if (chunk.done) break;
      for (const { type, data } of frames.push(decoder.decode(chunk.value, { stream: true }))) {
        // An event named on its `event:` line is parsed only when it matters.
        const event =
          chained || type === undefined || type === 'response.completed' ? jsonOf(data) : undefined;
        const kind = type ?? event?.type;
        if (kind === 'response.completed') completed = event?.response;
        if (kind === 'response.failed' || kind === 'error') this.latest = undefined;
        this.peer.send(chained && event ? JSON.stringify(relinked(event, body)) : data);
      }
    }
    if (completed) this.remember(body, chained, completed);
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
    if (typeof previous !== 'string' || !latest || latest.id !== previous || latest.stored) return undefined;
    const { previous_response_id: _id, ...rest } = body;
    return { ...rest, input: [...latest.items, ...inputItems(body.input)] };
  }

  private remember(body: Body, chained: Body | undefined, response: Record<string, any>): void {
    const output = Array.isArray(response.output) ? response.output : [];
    const earlier =
      chained !== undefined
        ? inputItems(chained.input)
        : typeof body.previous_response_id === 'string' && this.latest?.id === body.previous_response_id
          ? [...this.latest.items, ...inputItems(body.input)]
          : inputItems(body.input);
    this.latest = { id: String(response.id), stored: body.store !== false, items: [...earlier, ...output] };
  }

  private fail(error: unknown): void {
    this.latest = undefined;
    this.peer.send(JSON.stringify(error));
  }

  private httpUrl(): string {
    const url = new URL(this.opening.url.href);
    url.protocol = url.protocol === 'ws:' ? 'http:' : 'https:';
    return url.href;
  }

  /** The upgrade's headers, as the client would send them with a POST (no WebSocket handshake ones). */
  private headers(): Headers {
    const headers = this.opening.headers();
    for (const name of [...headers.keys()])
      if (/^(sec-websocket-|upgrade$|connection$|host$|content-length$)/.test(name)) headers.delete(name);
    headers.set('content-type', 'application/json');
    return headers;
  }
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
