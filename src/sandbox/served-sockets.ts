/**
 * WebSockets over the served port, for agents in other processes: an upgrade at a provider's path
 * (`[/run/<token>]/openai/v1/responses`) is the socket its real URL would be
 * (`wss://api.openai.com/v1/responses`), served by that URL's socket protocol; each of its
 * messages is handled in the run its token names (else as the file's, outside any run). Anything
 * else is refused, and fails the test naming the path.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { offeredProtocols, plainHeaders, serveUpgrade, wsFormOf } from '../sockets/carrier';
import type { ServedDeps } from './served';
import { SERVED_PROVIDERS, type ServedProvider, servedModelUrl, splitPath } from './served';
import type { FileSockets } from './sockets';

export interface ServedSocketDeps extends Pick<ServedDeps, 'context'> {
  sockets(): FileSockets;
}

/** Serves (or refuses) one upgrade that arrived at the served port. */
export function serveSocket(
  deps: ServedSocketDeps,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  track: (socket: Duplex) => void,
): void {
  const { path, search } = splitPath(req.url ?? '/');
  const token = /^\/run\/([^/]+)(\/.*)?$/.exec(path);
  const { runs } = deps.context;
  const below = token ? (token[2] ?? '/') : path;
  const refuse = (message: string) => {
    deps.context.fail('SERVED_UNROUTED', message);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  };
  let inContext = <R>(fn: () => R): R => runs.outside(fn);
  if (token) {
    const run = runs.ofToken(decodeURIComponent(token[1]));
    if (run.state === 'ended' || run.state === 'unknown') {
      refuse(
        `jest-understudy: a WebSocket to ${path} arrived over the served port with the token of a run that is not running (${run.state}), so nothing could check it.`,
      );
      return;
    }
    if (run.state === 'active') inContext = (fn) => runs.within(run.recorder, fn);
  }
  const [, first = ''] = below.split('/');
  const upgrade = req.headers.upgrade?.toLowerCase() === 'websocket';
  const url = Object.hasOwn(SERVED_PROVIDERS, first)
    ? wsFormOf(servedModelUrl(first as ServedProvider, below.slice(first.length + 1), search))
    : undefined;
  const acceptance =
    upgrade && url
      ? inContext(() =>
          deps.sockets().accept({
            url,
            headers: plainHeaders(req),
            protocols: offeredProtocols(req.headers['sec-websocket-protocol']),
          }),
        )
      : undefined;
  if (!acceptance) {
    refuse(
      `jest-understudy: a WebSocket to ${path} arrived over the served port, and no socket protocol serves it${url ? ` (it stands for ${url})` : ''}. The served port takes a provider's sockets below its URL in served.urls, as ws:// (the Responses API's at served.urls.openai + '/responses').`,
    );
    return;
  }
  track(socket);
  serveUpgrade(req, socket, head, acceptance, inContext);
}
