/**
 * A routed context's WebSockets (Playwright's `routeWebSocket`, 1.48 and later), through the same
 * policy as its requests: a WebSocket server of the test process on loopback, or what
 * `network.allow` names, is connected to; anything else (a provider's socket protocols included:
 * nothing serves WebSocket) fails the test naming the host, and the page's socket closes before
 * it opens.
 */
import type { PlaywrightWebSocketRoute } from './playwright';
import { type Routing, TRANSPORT } from './routing';

/** Policy violation (RFC 6455): the page sees the socket close with this code and a short reason. */
const REFUSED = { code: 1008, reason: 'jest-understudy: nothing serves this WebSocket' };

export async function answerSocket(routing: Routing, socket: PlaywrightWebSocketRoute): Promise<void> {
  // Routes of WebSockets cannot be taken off: after unroute() they pass, as if never routed.
  if (routing.removed) return void socket.connectToServer();
  const url = socket.url();
  const refusal = routing.deps.file.refusal('GET', url, TRANSPORT);
  if (refusal === undefined) return void socket.connectToServer();
  if (routing.owner.ended) routing.late(`WebSocket ${url}`);
  else routing.fail('UNHANDLED_REQUEST', refusal);
  await socket.close(REFUSED);
}
