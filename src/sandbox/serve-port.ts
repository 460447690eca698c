/**
 * The served port: a loopback HTTP/1.1 server on an ephemeral port that hands each request to
 * `answer` as it arrived (nothing read yet) and writes the wire answer back as it is produced.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { clientGone, headersOf, readBody, requestOf } from '../node-http';
import type { ServedRequest } from './served';
import type { WireAnswer } from './wire';
import { writeAnswer } from './write-answer';

export interface ServedPort {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * One request as it arrived. A class: an object literal with a getter, made per request, stays
 * alive (with the request and response it holds) until V8's next full collection
 * (bench/NOTES.md, "Per-request getters").
 */
class NodeServedRequest implements ServedRequest {
  readonly method: string;
  readonly path: string;
  private gone: AbortSignal | undefined;
  private body: Promise<Buffer> | undefined;

  constructor(
    private readonly req: http.IncomingMessage,
    private readonly res: http.ServerResponse,
    private readonly origin: string,
  ) {
    this.method = req.method ?? 'GET';
    this.path = req.url ?? '/';
  }

  /** Made when something waits on it: most answers are written before anything could. */
  get signal(): AbortSignal {
    this.gone ??= clientGone(this.res);
    return this.gone;
  }

  header(name: string): string | null {
    const value = this.req.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  headers(): Headers {
    return headersOf(this.req);
  }

  eachHeader(visit: (value: string, name: string) => void): void {
    const { headers } = this.req;
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) visit(Array.isArray(value) ? value.join(', ') : value, name);
    }
  }

  async readBody(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async toRequest(url = `${this.origin}${this.path}`): Promise<Request> {
    const { method } = this;
    const read = method === 'GET' || method === 'HEAD' ? undefined : await this.bytes();
    return requestOf(this.req, url, read, this.signal);
  }

  private bytes(): Promise<Buffer> {
    this.body ??= readBody(this.req);
    return this.body;
  }
}

/** One request that arrived at `origin`, as the served port hands it on. */
export function servedRequestOf(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  origin: string,
): ServedRequest {
  return new NodeServedRequest(req, res, origin);
}

/** Serves (or refuses) a WebSocket upgrade; `track` keeps an accepted socket until the port closes. */
export type ServedUpgrade = (
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  track: (socket: Duplex) => void,
) => void;

export function listenServed(
  answer: (request: ServedRequest) => Promise<WireAnswer>,
  failed: (message: string) => void,
  upgrade?: ServedUpgrade,
): Promise<ServedPort> {
  let origin = '';
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const request = servedRequestOf(req, res, origin);
    try {
      await writeAnswer(req, res, await answer(request));
    } catch (error) {
      // The client went away: nobody is left to tell.
      if (res.closed && !res.writableFinished) return;
      const message = `jest-understudy's served port failed on ${req.method} ${req.url}: ${(error as Error)?.message ?? error}`;
      failed(message);
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'SERVE_FAILED', message } }));
    }
  };
  const server = http.createServer((req, res) => void handle(req, res));
  // Upgraded sockets leave the server's books: closing the port ends them too.
  const upgraded = new Set<Duplex>();
  const track = (socket: Duplex) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  };
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgrade) return upgrade(req, socket, head, track);
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // The port must not keep Jest's worker alive, whatever the test forgot to close.
      server.unref();
      resolve({
        origin,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of upgraded) socket.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
