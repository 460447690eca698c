/**
 * The socket server's HTTP/2 side, driven as the AWS SDK drives it (Bedrock's ConverseStream):
 * a session per call, one stream, the session destroyed after. Each request reaches the hooks
 * as a Request at the served origin, in the async context of the `session.request()` call.
 * Its HTTP/1.1 side listens from the first socket it is given, through Node's own `listen`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http2 from 'node:http2';
import net from 'node:net';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ListeningPorts, watchListening } from '../../../../environment/network/listening';
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

/** A socket the guard gives the server, with a whole HTTP/1.1 request written at once, before it connects. */
function ask(server: SocketServer, path: string): { socket: net.Socket; reply: Promise<string> } {
  const socket = new net.Socket();
  server.attach(socket, ORIGIN, 'tls');
  socket.write(`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi`);
  const reply = new Promise<string>((resolve, reject) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
  return { socket, reply };
}

describe('SocketServer over HTTP/1.1', () => {
  let server: SocketServer | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await server?.close();
    server = undefined;
  });

  it('listens from the first socket it is given, once, and serves what was written before it listened', async () => {
    const listen = jest.spyOn(net.Server.prototype, 'listen');
    const seen: Seen[] = [];
    server = SocketServer.start(
      {
        handle: async (request) => {
          seen.push({
            url: request.url,
            method: request.method,
            body: await request.text(),
            call: calls.getStore(),
            header: null,
          });
          return new Response('served');
        },
        unhandled: () => {},
      },
      net.Socket.prototype.connect,
    );
    expect(listen).not.toHaveBeenCalled();
    const first = ask(server, '/one');
    const second = ask(server, '/two');
    expect(first.socket.connecting).toBe(true);
    const replies = await Promise.all([first.reply, second.reply]);
    expect(replies.map((reply) => reply.endsWith('served'))).toEqual([true, true]);
    expect(await ask(server, '/three').reply).toMatch(/served$/);
    expect(listen).toHaveBeenCalledTimes(1);
    expect(seen.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      `POST ${ORIGIN}/one hi`,
      `POST ${ORIGIN}/two hi`,
      `POST ${ORIGIN}/three hi`,
    ]);
  });

  it('is not one of the servers the network policy lets loopback through to, though it listens after the guards', async () => {
    server = SocketServer.start(
      { handle: () => new Response('served'), unhandled: () => {} },
      net.Socket.prototype.connect,
    );
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    try {
      const { socket, reply } = ask(server, '/one');
      const port = await new Promise<number>((resolve) =>
        socket.once('connect', () => resolve(socket.remotePort!)),
      );
      expect(await reply).toMatch(/served$/);
      expect(ports.reaches({ transport: 'tcp', host: '127.0.0.1', port })).toBe(false);
    } finally {
      stop();
    }
  });

  it('connects no socket destroyed while it started to listen, and closes while it starts, leaving nothing listening', async () => {
    const seen: string[] = [];
    const listen = jest.spyOn(net.Server.prototype, 'listen');
    server = SocketServer.start(
      {
        handle: (request) => {
          seen.push(request.url);
          return new Response('served');
        },
        unhandled: () => {},
      },
      net.Socket.prototype.connect,
    );
    const destroyed = ask(server, '/gone');
    destroyed.socket.destroy();
    const pending = ask(server, '/pending');
    await server.close();
    server = undefined;
    await expect(pending.reply).resolves.toBe('');
    expect(pending.socket.destroyed).toBe(true);
    // Connecting a destroyed socket would have brought it back to life, connecting.
    expect([destroyed.socket.destroyed, destroyed.socket.connecting]).toEqual([true, false]);
    expect(seen).toEqual([]);
    const [http1] = listen.mock.contexts as net.Server[];
    expect(http1.listening).toBe(false);
  });
});
