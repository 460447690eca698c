/**
 * The WebSockets of one test file: a carrier (in process, the served port) offers each socket a
 * client opened to a served host; the socket protocol registered for its provider and path
 * (src/sockets/registry.ts) serves it, with the file's services. Every connection is noted (its
 * URL, protocol and close code) in `understudy.sockets`, and its session (./session-log.ts) kept for
 * the test's trace; one still open when the file's tests are done is closed here (`1001`), so no
 * socket outlives its file.
 */
import { secretsInUse } from '../files/secrets';
import { scrubSecrets, scrubText } from '../redact';
import type { SocketAcceptance, SocketOffer } from '../sockets/carrier';
import type { SocketConnection, SocketPeer, SocketServices, UpstreamRelay } from '../sockets/protocol';
import { SocketRouter } from '../sockets/registry';
import { TRACE_LIMITS } from '../trace/budget';
import type { SessionEvidence } from '../trace/evidence';
import { toPlain } from '../trace/plain';
import type { FileRequests } from './requests';
import { SessionLog } from './session-log';

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

/** A socket's session, with how it ended (the reason, and a drop, are the trace's, not the record's). */
interface Session {
  log: SessionLog;
  record: Tracked['record'];
  closeReason?: string;
  dropped?: boolean;
}

/** The close code and reason a socket still open when the file's tests are done gets. */
export const FILE_ENDED = { code: 1001, reason: "jest-understudy: the test file's tests are done" };

export class FileSockets {
  /** The sockets opened in the current test (before the first test, in the file's set-up). */
  log: SocketRecord[] = [];
  private readonly router: SocketRouter;
  private readonly open = new Set<Tracked>();
  /** The sessions the current test's trace shows: those opened since the last test, and those still open. */
  private sessions: Session[] = [];
  /** The sessions there were when the last test ended: let go when the next one starts, unless still open. */
  private earlier = new Set<Session>();
  /** Sessions of an earlier test still open when this one started, and when it did: shown if used since. */
  private carried = { sessions: new Set<Session>(), since: 0 };

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
          (peer, log) =>
            protocol.open(
              opening,
              peer,
              noting(
                log,
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
            ),
          protocol.protocol,
          () => upstream.relay?.close(),
        ),
    };
  }

  /** A test starts: the sessions of the last one that have closed (also since it ended) are let go. */
  testStarted(): void {
    this.sessions = this.sessions.filter((s) => !this.earlier.has(s) || s.log.endedAt === undefined);
    this.carried = {
      sessions: new Set(this.sessions.filter((s) => this.earlier.has(s))),
      since: performance.now(),
    };
    this.earlier = new Set();
  }

  /** A test is over: the next one notes its own sockets (one still open keeps its record, and is closed at the file's end). */
  testFinished(): void {
    this.log = [];
    this.earlier = new Set(this.sessions);
  }

  /** The current test's sessions and their turns, as plain, scrubbed data, for its trace. */
  evidence(): SessionEvidence[] {
    const secrets = secretsInUse();
    const scrub = (text: string) => scrubText(text, { values: secrets });
    const { carried } = this;
    const sessions = this.sessions
      .filter((s) => !carried.sessions.has(s) || s.log.activeSince(carried.since))
      .map(({ log, record, closeReason, dropped }, index) =>
        log.evidence(index, { ...record, closeReason, dropped }),
      );
    const plain = toPlain(sessions, { maxString: TRACE_LIMITS.maxString, scrub });
    return scrubSecrets(plain, { values: secrets }) as SessionEvidence[];
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
    open: (peer: SocketPeer, log: SessionLog) => SocketConnection,
    protocol: string,
    ended: () => void,
  ): SocketConnection {
    const record: Tracked['record'] = { url, protocol };
    this.log.push(record);
    const session: Session = { log: new SessionLog(url, protocol), record };
    this.sessions.push(session);
    const server = (closedBy: 'server') => {
      record.closedBy ??= closedBy;
    };
    const peer: SocketPeer = {
      send: (data) => client.send(data),
      close: (code, reason) => {
        server('server');
        session.closeReason ??= reason;
        client.close(code, reason);
      },
      drop: () => {
        server('server');
        session.dropped = true;
        record.closeCode ??= 1006;
        session.log.closed();
        client.drop();
      },
    };
    const tracked: Tracked = { record, peer: client, ended };
    this.open.add(tracked);
    const connection = open(peer, session.log);
    return {
      message: (data) => connection.message(data),
      closed: (code, reason) => {
        if (!this.open.delete(tracked)) return;
        ended();
        record.closeCode ??= code;
        record.closedBy ??= 'client';
        session.closeReason ??= reason || undefined;
        if (code === 1006) session.dropped = true;
        session.log.closed();
        connection.closed(code, reason);
      },
    };
  }
}

/** A protocol's services, its session noting what they see: the calls' outcomes, refused events, its notes. */
function noting(log: SessionLog, services: SocketServices): SocketServices {
  return {
    ...services,
    answer: (conversation, turn) => log.answering(() => log.asks(() => services.answer(conversation, turn))),
    call: (call) => log.asks(() => services.call(call)),
    refused: (error) => {
      log.refused(error);
      services.refused(error);
    },
    note: (note) => log.note(note),
  };
}
