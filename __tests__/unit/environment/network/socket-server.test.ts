/**
 * The socket server's HTTP/2 side, driven as the AWS SDK drives it (Bedrock's ConverseStream):
 * a session per call, one stream, the session destroyed after. Each request reaches the hooks
 * as a Request at the served origin, in the async context of the `session.request()` call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http2 from 'node:http2';
import net from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { SocketServer } from '../../../../environment/network/socket-server';

const ORIGIN = 'https://bedrock-runtime.us-east-1.amazonaws.com';
const calls = new AsyncLocalStorage<string>();

interface Seen {
  url: string;
  method: string;
  body: string;
  call: string | undefined;
  header: string | null;
}

async function startServer(seen: Seen[], unhandled: string[]): Promise<SocketServer> {
  return SocketServer.start(
    {
      async handle(request) {
        const body = await request.text();
        seen.push({
          url: request.url,
          method: request.method,
          body,
          call: calls.getStore(),
          header: request.headers.get('x-jest-understudy-context'),
        });
        if (request.url.endsWith('/unanswered')) return undefined;
        const events = ['one', 'two', 'three'].map((e) => new TextEncoder().encode(`${e}|${body}\n`));
        return new Response(
          new ReadableStream({
            start(controller) {
              for (const event of events) controller.enqueue(event);
              controller.close();
            },
          }),
          { status: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream' } },
        );
      },
      unhandled: (method, url, transport) => unhandled.push(`${method} ${url} ${transport}`),
    },
    net.Socket.prototype.connect,
  );
}

/** One call as NodeHttp2Handler makes it with `disableConcurrentStreams`: its own session, destroyed after. */
function call(server: SocketServer, path: string, body: string): Promise<{ status: number; text: string }> {
  const session = server.connectHttp2(http2.connect, ORIGIN, undefined, undefined, ORIGIN, 'http2');
  session.settings({ maxConcurrentStreams: 1 });
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ':method': 'POST' });
    let status = 0;
    let text = '';
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
    });
    stream.on('end', () => {
      session.destroy();
      resolve({ status, text });
    });
    stream.on('error', (error) => {
      session.destroy();
      reject(error);
    });
    stream.end(body);
  });
}

describe('SocketServer over HTTP/2', () => {
  let server: SocketServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves a session per call, each request in the context of the call that made it', async () => {
    const seen: Seen[] = [];
    server = await startServer(seen, []);
    const s = server;
    const results = [];
    for (let i = 0; i < 25; i++)
      results.push(
        await calls.run(`call ${i}`, () => call(s, `/model/m/converse-stream?i=${i}`, `body ${i}`)),
      );
    expect(results).toEqual(
      Array.from({ length: 25 }, (_, i) => ({
        status: 200,
        text: `one|body ${i}\ntwo|body ${i}\nthree|body ${i}\n`,
      })),
    );
    expect(seen).toEqual(
      Array.from({ length: 25 }, (_, i) => ({
        url: `${ORIGIN}/model/m/converse-stream?i=${i}`,
        method: 'POST',
        body: `body ${i}`,
        call: `call ${i}`,
        // The stream's context id is the server's own: the handler never sees it.
        header: null,
      })),
    );
  });

  it('serves parallel sessions apart, and resets a stream nothing answers', async () => {
    const seen: Seen[] = [];
    const unhandled: string[] = [];
    server = await startServer(seen, unhandled);
    const s = server;
    const both = await Promise.all([
      calls.run('a', () => call(s, '/a', 'A')),
      calls.run('b', () => call(s, '/b', 'B')),
    ]);
    expect(both.map((r) => r.text)).toEqual(['one|A\ntwo|A\nthree|A\n', 'one|B\ntwo|B\nthree|B\n']);
    expect(seen.map((r) => [r.url, r.call]).sort()).toEqual([
      [`${ORIGIN}/a`, 'a'],
      [`${ORIGIN}/b`, 'b'],
    ]);
    // Its stream is reset: the client gets no response.
    expect(await call(s, '/unanswered', 'x')).toEqual({ status: 0, text: '' });
    expect(unhandled).toEqual([`POST ${ORIGIN}/unanswered http2`]);
  });

  it('ends a session still open when it closes', async () => {
    server = await startServer([], []);
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const session = server.connectHttp2(http2.connect, ORIGIN, undefined, () => connected(), ORIGIN, 'http2');
    await ready;
    const closed = new Promise((done) => session.once('close', done));
    await server.close();
    server = undefined;
    await closed;
    expect(session.destroyed).toBe(true);
  });
});
