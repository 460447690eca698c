/**
 * Serves provider and world hosts to clients that speak HTTP on a socket of their own (undici's
 * agents, pools and clients, http2): the connection guard connects such a socket here, on
 * loopback (an HTTP/2 session: over an in-memory stream pair), instead of to the host, and this
 * server hands each request to the runtime as a WHATWG `Request`, as msw's catch-all does. Requests run in the async context of the client
 * call that wrote them, so a model call made inside `understudy.run` belongs to that run.
 *
 * The HTTP/1.1 server listens from the first socket it is given, not before: most test files never
 * give it one, and a listen costs a process a DNS lookup of the address (Node's thread pool starts
 * for it) on top of the socket.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { type Duplex, duplexPair } from 'node:stream';
import { respond, toRequest } from '../../src/node-http';
import {
  offeredProtocols,
  plainHeaders,
  type SocketAcceptance,
  type SocketOffer,
  serveUpgrade,
} from '../../src/sockets/carrier';

export interface ServingHooks {
  handle(request: Request): Promise<Response | undefined> | Response | undefined;
  /** A request to a served host that nothing answers; the client then sees the connection drop. */
  unhandled(method: string, url: string, transport: string): void;
  /** The socket protocol serving a WebSocket to a served host (undefined: none, the test fails). */
  acceptSocket?(offer: SocketOffer): SocketAcceptance | undefined;
}

type Snapshot = <R>(fn: () => R) => R;

interface Connection {
  origin: string;
  transport: string;
  /** The async context of the client's latest write: the request the server reads next. */
  context?: Snapshot;
}

type Connect = typeof net.Socket.prototype.connect;
type Listen = typeof net.Server.prototype.listen;

/** Set by the client side of an HTTP/2 stream, read and dropped by the server side. */
const CONTEXT_HEADER = 'x-jest-understudy-context';

export class SocketServer {
  /** Open client connections, by the local port the server sees as their remote port. */
  private readonly connections = new Map<number, Connection>();
  private readonly streamContexts = new Map<string, Snapshot>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  /** The HTTP/2 sessions the guard opened, and the connection each stands for. */
  private readonly h2Connections = new WeakMap<http2.ServerHttp2Session, Connection>();
  /** The connection of the session `connectHttp2` is opening (sessions start synchronously). */
  private opening: Connection | undefined;
  /**
   * The HTTP/2 server's sockets: a destroyed session whose client is still connected keeps its
   * socket (and the server's close) waiting, as HTTP/1.1 has `closeAllConnections` for.
   */
  private readonly h2Sockets = new Set<Duplex>();
  /** WebSockets this server accepted, open until they close. */
  private readonly upgraded = new Set<net.Socket>();
  private streamIds = 0;
  /** The HTTP/1.1 server's port, once it listens (from the first socket it is given). */
  private listening: Promise<number> | undefined;
  private closing = false;

  private constructor(
    private readonly hooks: ServingHooks,
    private readonly realConnect: Connect,
    /**
     * Node's `listen`, as it was before the guards: the server is not one of the test's, whose
     * ports the network policy lets loopback connections through to.
     */
    private readonly realListen: Listen,
    private readonly h1: http.Server,
    private readonly h2: http2.Http2Server,
  ) {
    h1.on('request', (req, res) => this.serve(req, res, this.connections.get(req.socket.remotePort ?? -1)));
    // A WebSocket to a path a socket protocol serves is handed to it; any other upgrade fails the test.
    h1.on('upgrade', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      const connection = this.connections.get(req.socket.remotePort ?? -1);
      if (connection) {
        // Joined, not resolved: a path that starts `//` (@google/genai's Live socket) is not a host.
        const url = new URL(`${connection.origin}${req.url ?? '/'}`);
        if (req.headers.upgrade?.toLowerCase() === 'websocket') {
          url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
          if (this.serveSocket(req, socket, head, url.href, connection)) return;
          hooks.unhandled('GET', url.href, 'websocket');
        } else hooks.unhandled(req.method ?? 'GET', url.href, connection.transport);
      }
      socket.destroy();
    });
    h2.on('connection', (socket: Duplex) => {
      this.h2Sockets.add(socket);
      socket.once('close', () => this.h2Sockets.delete(socket));
    });
    h2.on('session', (session) => {
      if (this.opening) this.h2Connections.set(session, this.opening);
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    h2.on('request', (req, res) => {
      const id = req.headers[CONTEXT_HEADER];
      const connection = this.h2Connections.get(req.stream.session as http2.ServerHttp2Session);
      const context = typeof id === 'string' ? this.streamContexts.get(id) : undefined;
      if (typeof id === 'string') this.streamContexts.delete(id);
      this.serve(req, res, connection && { ...connection, context });
    });
  }

  /** A server for one test file; call it before the guards are in place (it keeps Node's `listen`). */
  static start(hooks: ServingHooks, realConnect: Connect): SocketServer {
    const h1 = http.createServer();
    // HTTP/2 sessions reach their server through memory only: it listens on no port.
    const h2 = http2.createServer();
    return new SocketServer(hooks, realConnect, net.Server.prototype.listen, h1, h2);
  }

  /** Connects `socket` (not yet connected) to the HTTP/1.1 server in place of `origin`. */
  attach(socket: net.Socket, origin: string, transport: string): void {
    const connection: Connection = { origin, transport };
    // Every write reaches the stream's `_write`/`_writev`, in the context of the call that flushed it
    // (clients write through paths that skip the socket's own `write`, e.g. cork/uncork).
    type Writes = { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void };
    const writes = socket as unknown as Writes;
    for (const key of ['_write', '_writev'] as const) {
      const original = writes[key];
      if (typeof original !== 'function') continue;
      writes[key] = function (this: net.Socket, ...args: unknown[]) {
        connection.context = AsyncLocalStorage.snapshot();
        return original.apply(this, args);
      };
    }
    this.open(socket, connection);
  }

  /**
   * `http2.connect` to a served origin: a session with the HTTP/2 server over an in-memory stream
   * pair (the client and the server are both this process: a loopback connection would only add
   * a connect, an accept and the kernel's round trips to every session). Each stream carries the
   * async context of the `session.request()` call that opened it.
   */
  connectHttp2(
    connect: typeof http2.connect,
    authority: string | URL,
    options: http2.SecureClientSessionOptions | undefined,
    listener: ((session: http2.ClientHttp2Session) => void) | undefined,
    origin: string,
    transport: string,
  ): http2.ClientHttp2Session {
    const connection: Connection = { origin, transport };
    const createConnection = () => {
      const [client, server] = duplexPair();
      // As with a connection, one end going (its session destroyed, the server closing) ends the other.
      client.once('close', () => server.destroy());
      server.once('close', () => client.destroy());
      this.opening = connection;
      try {
        this.h2.emit('connection', server);
      } finally {
        this.opening = undefined;
      }
      return client;
    };
    const session = connect(authority, { ...options, createConnection }, listener);
    const request = session.request;
    const contexts = this.streamContexts;
    const nextId = () => String(++this.streamIds);
    session.request = function (this: http2.ClientHttp2Session, headers, streamOptions) {
      const id = nextId();
      contexts.set(id, AsyncLocalStorage.snapshot());
      return request.call(this, { ...headers, [CONTEXT_HEADER]: id }, streamOptions);
    } as typeof session.request;
    return session;
  }

  async close(): Promise<void> {
    this.closing = true;
    // A listen under way ends first: closing the server before it would leave it listening.
    await this.listening?.catch(() => undefined);
    for (const socket of this.upgraded) socket.destroy();
    for (const session of this.sessions) session.destroy();
    for (const socket of this.h2Sockets) socket.destroy();
    this.h1.closeAllConnections();
    await Promise.all([closed(this.h1), closed(this.h2)]);
    this.connections.clear();
    this.streamContexts.clear();
  }

  /** Hands an upgrade to the socket protocol of its URL; false when none serves it. */
  private serveSocket(
    req: http.IncomingMessage,
    socket: net.Socket,
    head: Buffer,
    url: string,
    connection: Connection,
  ): boolean {
    const offer = {
      url,
      headers: plainHeaders(req),
      protocols: offeredProtocols(req.headers['sec-websocket-protocol']),
    };
    const acceptance = this.hooks.acceptSocket?.(offer);
    if (!acceptance) return false;
    // An upgraded socket leaves the HTTP server's books: closing the server must end it too.
    this.upgraded.add(socket);
    socket.once('close', () => this.upgraded.delete(socket));
    // Each frame is handled in the async context of the client's latest write, as a request is.
    serveUpgrade(req, socket, head, acceptance, (fn) => (connection.context ? connection.context(fn) : fn()));
    return true;
  }

  private open(socket: net.Socket, connection: Connection): void {
    socket.prependOnceListener('connect', () => {
      const local = socket.localPort!;
      this.connections.set(local, connection);
      socket.once('close', () => {
        if (this.connections.get(local) === connection) this.connections.delete(local);
      });
    });
    const connect = (port: number) =>
      (this.realConnect as (options: net.NetConnectOpts) => net.Socket).call(socket, {
        port,
        host: '127.0.0.1',
      });
    if (this.h1.listening) return void connect((this.h1.address() as AddressInfo).port);
    // Until the server listens, the socket is connecting, as it would be to the host: what the client
    // writes meanwhile waits for the connection, as Node's socket holds writes made before it connects.
    (socket as unknown as { connecting: boolean }).connecting = true;
    this.listening ??= listen(this.h1, this.realListen);
    this.listening.then(
      (port) => {
        if (this.closing) socket.destroy();
        else if (!socket.destroyed) connect(port);
      },
      (error: unknown) => socket.destroy(error as Error),
    );
  }

  private async serve(
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
    connection: Connection | undefined,
  ): Promise<void> {
    // Only the guard's own connections are served: anything else on this port is a stranger.
    if (!connection) return void res.destroy();
    try {
      const request = await toRequest(req, res, connection.origin + req.url, CONTEXT_HEADER);
      const handle = () => this.hooks.handle(request);
      const response = await (connection.context ? connection.context(handle) : handle());
      if (!response) {
        this.hooks.unhandled(request.method, request.url, connection.transport);
        return void res.destroy();
      }
      await respond(req, res, response);
    } catch (error) {
      // As msw answers a handler that throws: a 500 that says why.
      if (res.headersSent) return void res.destroy();
      res.statusCode = 500;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`jest-understudy could not serve this request: ${(error as Error)?.message ?? error}`);
    }
  }
}

/** Listens on a loopback port of the system's choosing; resolves with the port. */
function listen(server: http.Server, realListen: Listen): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    (realListen as (port: number, host: string, listening: () => void) => unknown).call(
      server,
      0,
      '127.0.0.1',
      () => {
        server.off('error', reject);
        server.unref();
        resolve((server.address() as AddressInfo).port);
      },
    );
  });
}

function closed(server: http.Server | http2.Http2Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
