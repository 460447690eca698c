/**
 * What every WebSocket carrier shares: the question it asks the file's session when a client opens
 * a socket to a served host (`SocketOffer` in, `SocketAcceptance` out), and the server side of the
 * socket on a node:http upgrade (RFC 6455 framing, from the `ws` package), which carriers that see
 * the upgrade as a node:http request use: the environment's socket server (the `ws` package, Node's
 * global `WebSocket`, the `undici` package, in process) and the served port (other processes).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { SocketConnection, SocketData, SocketPeer } from './protocol';

/** A WebSocket a client opened to a served host, as the carrier saw it. */
export interface SocketOffer {
  /** The `ws:`/`wss:` URL (the provider's real one: a served port's path is mapped to it). */
  url: string;
  /** The upgrade's headers, by lower-case name (plain data: it may cross from the host realm). */
  headers: Readonly<Record<string, string>>;
  /** `Sec-WebSocket-Protocol`, in the client's order. */
  protocols: readonly string[];
}

/** The session's yes: the protocol serving the socket, and how to open it once the upgrade is done. */
export interface SocketAcceptance {
  /** The protocol's name (`openai.responses.ws`). */
  protocol: string;
  /** The subprotocol to answer the upgrade with, if any. */
  subprotocol?: string;
  open(peer: SocketPeer): SocketConnection;
}

/** Runs a frame's handling in the async context the carrier knows for it (the client call that wrote it). */
export type InContext = <R>(fn: () => R) => R;

type WsModule = typeof import('ws');
let wsModule: WsModule | undefined;

/**
 * The `ws` package, loaded on the first socket accepted: a test file that opens none pays nothing.
 * It is a dependency of jest-understudy because every carrier needs a server side, whatever client
 * the agent uses (Node's global `WebSocket` or a browser page need no `ws` of their own).
 */
function loadWs(): WsModule {
  wsModule ??= require('ws') as WsModule;
  return wsModule;
}

/** A node:http request's headers as plain data (repeated ones joined, as `Headers` does). */
export function plainHeaders(req: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** `Sec-WebSocket-Protocol`'s values, in order. */
export function offeredProtocols(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** The `ws:`/`wss:` form of an `http(s):` URL. */
export function wsFormOf(url: string): string {
  return url.replace(/^http(s?):/i, 'ws$1:');
}

/**
 * Completes the upgrade on `socket` and connects the client's frames to the protocol's connection,
 * each handled `inContext`; the connection hears how it closed (`1006` for a drop).
 */
export function serveUpgrade(
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  acceptance: SocketAcceptance,
  inContext: InContext = (fn) => fn(),
): void {
  const { WebSocketServer } = loadWs();
  const server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 0,
    handleProtocols: (offered: Set<string>) =>
      acceptance.subprotocol !== undefined && offered.has(acceptance.subprotocol)
        ? acceptance.subprotocol
        : false,
  });
  server.handleUpgrade(req, socket, head, (ws) => {
    let dropped = false;
    const peer: SocketPeer = {
      send: (data: SocketData) => {
        if (ws.readyState === ws.OPEN) ws.send(data);
      },
      close: (code, reason) => {
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
      },
      drop: () => {
        dropped = true;
        ws.terminate();
      },
    };
    const connection = acceptance.open(peer);
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const message: SocketData = isBinary ? new Uint8Array(bytes) : bytes.toString('utf8');
      inContext(() => connection.message(message));
    });
    ws.on('close', (code: number, reason: Buffer) => {
      const ended = dropped ? 1006 : code;
      inContext(() => connection.closed(ended, reason.toString('utf8')));
    });
    // A client that vanishes mid-frame: `close` follows with 1006.
    ws.on('error', () => {});
  });
}
