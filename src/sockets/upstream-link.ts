/**
 * A relay's socket to the real provider, as a queue of JSON messages: a turn sends its events and
 * reads the provider's until its own end. What a relay of any protocol shares.
 */
import type { UpstreamConnector, UpstreamSocket, UpstreamSocketRequest } from './protocol';

type Obj = Record<string, any>;

/** The provider's socket closed (or never opened): the turn cannot go on. */
export class UpstreamClosed extends Error {
  constructor(
    readonly closeCode: number,
    reason: string,
  ) {
    super(`the provider's socket closed (${closeCode}${reason ? `: ${reason}` : ''})`);
  }
}

/** A turn that cannot be sent as the client made it: the recording fails the test saying why. */
export class UnsendableTurn extends Error {
  readonly code = 'RECORD_UNSUPPORTED';
}

/** The provider heard a spoken turn but gave no transcript of it: nothing to record the user's turn by. */
export class TranscriptMissing extends Error {
  readonly code = 'RECORD_TRANSCRIPT_MISSING';
}

/** Upgrade headers that belong to the client's own connection, not to the one made upstream. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'upgrade',
  'content-length',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
]);

/** The client's upgrade headers to send upstream (its credentials among them). */
export function upstreamHeaders(headers: Headers): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name.toLowerCase())) out.push([name, value]);
  });
  return out;
}

const textOf = (data: unknown): string =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer || ArrayBuffer.isView(data)
      ? Buffer.from(data as ArrayBuffer).toString('utf8')
      : String(data);

/**
 * Runs a relay's operations (its turns, the spoken turns it hears) one after another: each reads the
 * provider's events up to its own end, so two at once would take each other's events. A barge-in
 * starts the next operation while the cut one still reads to its end.
 */
export class OneAtATime {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.last.then(operation, operation);
    this.last = next.catch(() => {});
    return next;
  }
}

export class UpstreamLink {
  private readonly inbox: Obj[] = [];
  private wake: (() => void) | undefined;
  private ended: UpstreamClosed | undefined;
  private readonly socket: UpstreamSocket;
  /** Resolves when the socket is open; rejects if it closes first. */
  readonly opened: Promise<void>;

  constructor(connect: UpstreamConnector, request: UpstreamSocketRequest) {
    const socket = connect(request);
    if (!socket)
      throw new Error(
        "this Node has no global WebSocket (Node 22 and later have one) to open the provider's socket with",
      );
    this.socket = socket;
    (socket as { binaryType?: string }).binaryType = 'arraybuffer';
    this.opened = new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve());
      socket.addEventListener('close', (event) => {
        this.ended = new UpstreamClosed(event.code, event.reason);
        reject(this.ended);
        this.wake?.();
      });
    });
    // A failed open also closes: the close names it.
    this.opened.catch(() => {});
    socket.addEventListener('error', () => {});
    socket.addEventListener('message', (event) => {
      let message: unknown;
      try {
        message = JSON.parse(textOf(event.data));
      } catch {
        return; // not an event of the protocol: nothing to read
      }
      if (message && typeof message === 'object') this.inbox.push(message as Obj);
      this.wake?.();
    });
  }

  send(message: Obj): void {
    if (this.ended) throw this.ended;
    this.socket.send(JSON.stringify(message));
  }

  /** The provider's next message; rejects once the socket closed and every message was read. */
  async next(): Promise<Obj> {
    for (;;) {
      const message = this.inbox.shift();
      if (message) return message;
      if (this.ended) throw this.ended;
      // One reader at a time (OneAtATime): a second would wait on a wake-up the first took.
      if (this.wake)
        throw new Error("two readers of one provider socket at once: each would miss the other's events");
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  close(): void {
    if (this.socket.readyState <= 1) this.socket.close(1000);
  }
}
