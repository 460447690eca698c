/**
 * The served port: a loopback HTTP/1.1 server on an ephemeral port that hands each request to
 * `answer` as a WHATWG Request and writes its Response back as it is produced.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { respond, toRequest } from '../node-http';

export interface ServedPort {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

export function listenServed(
  answer: (request: Request) => Promise<Response>,
  failed: (message: string) => void,
): Promise<ServedPort> {
  let origin = '';
  const server = http.createServer(async (req, res) => {
    let request: Request | undefined;
    try {
      request = await toRequest(req, res, `${origin}${req.url ?? '/'}`);
      await respond(req, res, await answer(request));
    } catch (error) {
      if (request?.signal.aborted) return;
      const message = `jest-understudy's served port failed on ${req.method} ${req.url}: ${(error as Error)?.message ?? error}`;
      failed(message);
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'SERVE_FAILED', message } }));
    }
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
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
