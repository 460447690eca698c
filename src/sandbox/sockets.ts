/**
 * The WebSockets of one test file: a carrier (in process, the served port) offers each socket a
 * client opened to a served host; the socket protocol registered for its provider and path
 * (src/sockets/registry.ts) serves it, with the file's services. Every connection is noted (its
 * URL, protocol and close code) in `understudy.sockets`, and one still open when the file's tests
 * are done is closed here (`1001`), so no socket outlives its file.
 */
import type { SocketAcceptance, SocketOffer } from '../sockets/carrier';
import type { SocketConnection, SocketPeer, UpstreamRelay } from '../sockets/protocol';
import { SocketRouter } from '../sockets/registry';
import type { FileRequests } from './requests';

/** One WebSocket a client opened to a served host, as the file saw it. */
export interface SocketRecord {
  /** The `ws:`/`wss:` URL (a served port's socket by its provider's real URL). */
  readonly url: string;
  /** The protocol that served it (`openai.responses.ws`). */
  readonly protocol: string;
  /** How it closed (RFC 6455: `1000` normal, `1001` the file ended, `1006` dropped); undefined while open. */
  readonly closeCode?: number;
  /** Who closed it: the client, the server (the protocol, a fault), or the runtime at the file's end. */
  readonly closedBy?: 'client' | 'server' | 'file end';
}

interface Tracked {
  record: { url: string; protocol: string; closeCode?: number; closedBy?: SocketRecord['closedBy'] };
  peer: SocketPeer;
  /** The connection is over: its upstream session (record and live modes) closes. */
  ended: () => void;
}

/** The close code and reason a socket still open when the file's tests are done gets. */
export const FILE_ENDED = { code: 1001, reason: "jest-understudy: the test file's tests are done" };

export class FileSockets {
  /** The sockets opened in the current test (before the first test, in the file's set-up). */
  log: SocketRecord[] = [];
  private readonly router: SocketRouter;
  private readonly open = new Set<Tracked>();

  constructor(private readonly requests: FileRequests) {
    this.router = new SocketRouter(requests.router);
  }

  /** The protocol that serves a socket to `offer.url`, ready to open; undefined when none does. */
  accept(offer: SocketOffer): SocketAcceptance | undefined {
    const route = this.router.route(offer.url);
    if (!route) return undefined;
    const { protocol, target } = route;
    const url = new URL(offer.url.replace(/^http(s?):/i, 'ws$1:'));
    const opening = {
      url,
      path: target.path,
      header: (name: string) => offer.headers[name.toLowerCase()] ?? null,
      headers: () => new Headers(offer.headers),
      protocols: offer.protocols,
    };
    // Record and live modes: the connection's own session with the provider, opened on its first turn.
    const upstream = { relay: undefined as UpstreamRelay | undefined };
    const relay = protocol.relay?.bind(protocol);
    return {
      protocol: protocol.protocol,
      subprotocol: protocol.subprotocol?.(offer.protocols),
      open: (client) =>
        this.opened(
          client,
          url.href,
          (peer) =>
            protocol.open(
              opening,
              peer,
              this.requests.socketServices({
                protocol: protocol.protocol,
                provider: protocol.provider,
                url: url.href,
                path: target.path,
                ...(relay && {
                  upstream: {
                    headers: opening.headers(),
                    relay: (connect) => (upstream.relay ??= relay(opening, connect)),
                  },
                }),
              }),
            ),
          protocol.protocol,
          () => upstream.relay?.close(),
        ),
    };
  }

  /** A test is over: the next one notes its own sockets (one still open keeps its record, and is closed at the file's end). */
  testFinished(): void {
    this.log = [];
  }

  /** The file's tests are done: every socket still open is closed (its client sees `1001`). */
  fileFinished(): void {
    for (const tracked of [...this.open]) {
      tracked.record.closedBy ??= 'file end';
      tracked.record.closeCode ??= FILE_ENDED.code;
      tracked.peer.close(FILE_ENDED.code, FILE_ENDED.reason);
      tracked.ended();
    }
  }

  private opened(
    client: SocketPeer,
    url: string,
    open: (peer: SocketPeer) => SocketConnection,
    protocol: string,
    ended: () => void,
  ): SocketConnection {
    const record: Tracked['record'] = { url, protocol };
    this.log.push(record);
    const server = (closedBy: 'server') => {
      record.closedBy ??= closedBy;
    };
    const peer: SocketPeer = {
      send: (data) => client.send(data),
      close: (code, reason) => {
        server('server');
        client.close(code, reason);
      },
      drop: () => {
        server('server');
        client.drop();
      },
    };
    const tracked: Tracked = { record, peer: client, ended };
    this.open.add(tracked);
    const connection = open(peer);
    return {
      message: (data) => connection.message(data),
      closed: (code, reason) => {
        if (!this.open.delete(tracked)) return;
        ended();
        record.closeCode ??= code;
        record.closedBy ??= 'client';
        connection.closed(code, reason);
      },
    };
  }
}
