/**
 * A routed context's WebSockets (Playwright's `routeWebSocket`, 1.48 and later), through the same
 * policy as its requests: a socket to a provider host whose path a socket protocol serves is
 * answered in the route itself (the page talks to the protocol, nothing connects); a WebSocket
 * server of the test process on loopback, or what `network.allow` names, is connected to;
 * anything else fails the test naming the URL, and the page's socket closes before it opens.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SocketAcceptance } from '../sockets/carrier';
import type { SocketData, SocketPeer } from '../sockets/protocol';
import type { PlaywrightWebSocketRoute } from './playwright';
import { type Routing, TRANSPORT } from './routing';

/** Policy violation (RFC 6455): the page sees the socket close with this code and a short reason. */
const REFUSED = { code: 1008, reason: 'jest-understudy: nothing serves this WebSocket' };
/** What a dropped socket closes with in the page: a route has no connection to cut. */
const DROPPED = { code: 1006, reason: '' };

export async function answerSocket(routing: Routing, socket: PlaywrightWebSocketRoute): Promise<void> {
  // Routes of WebSockets cannot be taken off: after unroute() they pass, as if never routed.
  if (routing.removed) return void socket.connectToServer();
  const url = socket.url();
  // A page's socket sends no headers of its own choosing, and offers its subprotocols in the URL's code only.
  const acceptance =
    !routing.owner.ended && socket.onMessage
      ? routing.deps.sockets?.accept({ url, headers: {}, protocols: [] })
      : undefined;
  if (acceptance) return serveInRoute(socket, acceptance);
  const refusal = routing.deps.file.refusal('GET', url, TRANSPORT);
  if (refusal === undefined) return void socket.connectToServer();
  if (routing.owner.ended) routing.late(`WebSocket ${url}`);
  else routing.fail('UNHANDLED_REQUEST', refusal);
  await socket.close(REFUSED);
}

/** The route is the server: the page's frames go to the protocol, its answers to the page. */
function serveInRoute(socket: PlaywrightWebSocketRoute, acceptance: SocketAcceptance): void {
  // Frames arrive on Playwright's connection: each is handled in the context the routing belongs to.
  const inContext = AsyncLocalStorage.snapshot();
  const close = (options: { code: number; reason: string }) =>
    void socket.close(options).catch(() => {
      // The page or context closed first.
    });
  const peer: SocketPeer = {
    send: (data: SocketData) => socket.send!(typeof data === 'string' ? data : Buffer.from(data)),
    close: (code, reason = '') => close({ code, reason }),
    drop: () => close(DROPPED),
  };
  const connection = acceptance.open(peer);
  socket.onMessage!((message) =>
    inContext(() => connection.message(typeof message === 'string' ? message : new Uint8Array(message))),
  );
  socket.onClose?.((code, reason) => inContext(() => connection.closed(code ?? 1005, reason ?? '')));
}
