/**
 * The network policy, the argument readers and the guards, in-process. Refusals here aim at
 * loopback addresses the test owns (a guard told to refuse them), so nothing could leave even
 * if a guard failed; the layer below each guard is a spy that must never be reached.
 * The full containment, every transport against hosts that must not be reached, runs from the
 * installed package in a network namespace: __tests__/installed/containment.test.ts.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import dgram from 'node:dgram';
import dns from 'node:dns';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import workerThreads from 'node:worker_threads';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { allowPatterns, allows, parseAllowPattern } from '../../../../environment/network/allow';
import { guardDgram } from '../../../../environment/network/dgram';
import {
  callerTransport,
  createInterception,
  DISPATCHER_KEYS,
  installDispatcher,
} from '../../../../environment/network/dispatcher';
import { guardDns } from '../../../../environment/network/dns';
import { GUARDED, type GuardContext, patch } from '../../../../environment/network/guard';
import { guardHttp2 } from '../../../../environment/network/http2';
import { ListeningPorts, watchListening } from '../../../../environment/network/listening';
import {
  blockedMessage,
  createPolicy,
  defaultRules,
  isLoopback,
  originOf,
  requestTarget,
  type Target,
} from '../../../../environment/network/policy';
import { SocketServer } from '../../../../environment/network/socket-server';
import { guardSockets } from '../../../../environment/network/sockets';
import {
  dgramConnectTarget,
  dgramSendTarget,
  hostOfServer,
  http2Target,
  netTarget,
  tlsTarget,
} from '../../../../environment/network/targets';
import { patchWorker } from '../../../../environment/network/workers';

describe('the network policy', () => {
  const patterns = allowPatterns(['localhost:5432', '*.internal.test:443', 'cache.test:*']);
  const policy = createPolicy(
    defaultRules({
      serves: (origin) => origin === 'http://127.0.0.1:11434',
      listening: (target) => target.port === 3000,
      allowed: (target) => allows(patterns, target),
    }),
  );
  const at = (host: string, port?: number): Target => ({ transport: 'net', host, port, protocol: 'http:' });

  it("serves a served origin even on loopback, passes the process's own loopback ports, refuses the rest", () => {
    expect(policy.decide(at('127.0.0.1', 11434))).toEqual({ action: 'serve' });
    expect(policy.decide(at('127.0.0.1', 3000))).toEqual({ action: 'pass' });
    expect(policy.decide(at('localhost', 3000))).toEqual({ action: 'pass' });
    // Another process's loopback server (a database, Ollama) is not the test's own.
    expect(policy.decide(at('127.0.0.1', 11435))).toEqual({
      action: 'refuse',
      message: blockedMessage(at('127.0.0.1', 11435)),
    });
    expect(policy.decide(at('localhost', 80)).action).toBe('refuse');
    const refused = policy.decide(at('tracker.invalid', 443));
    expect(refused).toEqual({ action: 'refuse', message: blockedMessage(at('tracker.invalid', 443)) });
  });

  it('passes what network.allow names: a loopback name for every loopback address, wildcards for subdomains only', () => {
    for (const [host, port] of [
      ['localhost', 5432],
      ['127.0.0.1', 5432],
      ['::1', 5432],
      ['db.internal.test', 443],
      ['a.b.internal.test', 443],
      ['cache.test', 6379],
      ['CACHE.test.', 1],
    ] as const)
      expect([host, port, policy.decide(at(host, port)).action]).toEqual([host, port, 'pass']);
    for (const [host, port] of [
      ['localhost', 5433],
      ['internal.test', 443],
      ['db.internal.test', 80],
      ['evilinternal.test', 443],
      ['cache.test.invalid', 6379],
    ] as const)
      expect([host, port, policy.decide(at(host, port)).action]).toEqual([host, port, 'refuse']);
  });

  it('lets a lookup stay on the machine, and looks up an allowed host; other lookups are refused', () => {
    const lookup = (host: string): Target => ({ transport: 'dns', host, subject: `a dns lookup of ${host}` });
    expect(policy.decide(lookup('localhost')).action).toBe('pass');
    expect(policy.decide(lookup('db.internal.test')).action).toBe('pass');
    expect(policy.decide(lookup('tracker.invalid')).action).toBe('refuse');
    // A query to the machine's stub resolver would still leave it.
    expect(policy.decide({ transport: 'dns', host: '127.0.0.53', port: 53 }).action).toBe('refuse');
  });

  it('knows loopback: 127.0.0.0/8, ::1 (also mapped and expanded), localhost; nothing else', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'LOCALHOST',
    ])
      expect([host, isLoopback(host)]).toEqual([host, true]);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '128.0.0.1',
      'localhost.invalid',
      'example.localhost',
      '::2',
    ])
      expect([host, isLoopback(host)]).toEqual([host, false]);
  });

  it('names origins as new URL(base).origin does', () => {
    expect(originOf({ transport: 'tls', host: 'API.openai.com', port: 443, protocol: 'https:' })).toBe(
      'https://api.openai.com',
    );
    expect(originOf({ transport: 'net', host: '::1', port: 8080, protocol: 'http:' })).toBe(
      'http://[::1]:8080',
    );
    expect(originOf({ transport: 'dns', host: 'x.invalid' })).toBeUndefined();
  });

  it('reads requests by URL, WebSocket ones included', () => {
    expect(requestTarget('GET', 'wss://ws.invalid/socket', 'websocket')).toEqual({
      transport: 'websocket',
      host: 'ws.invalid',
      port: 443,
      protocol: 'https:',
      request: 'WebSocket wss://ws.invalid/socket',
    });
    expect(requestTarget('POST', 'http://[::1]:81/x', 'undici')).toMatchObject({ host: '::1', port: 81 });
    expect(requestTarget('GET', 'file:///etc/passwd', 'fetch')).toBeUndefined();
  });

  it('says what was tried, by which transport, at which host and port, and the option that allows it', () => {
    expect(blockedMessage({ transport: 'tls', host: 'tls.invalid', port: 8443 })).toBe(
      'a connection to tls.invalid:8443 reached the network layer, but nothing mocks it ' +
        '(transport: tls, host: tls.invalid, port: 8443).\n' +
        '  jest-understudy fails every request it does not serve, so a test never depends on the network.\n' +
        '  For a model provider behind another host, add it to testEnvironmentOptions.understudy.providers.<name>.baseURL.\n' +
        '  To let it through untouched, add "tls.invalid:8443" to testEnvironmentOptions.understudy.network.allow.',
    );
    expect(
      blockedMessage({ transport: 'dns', host: 'db.invalid', subject: 'a dns lookup of db.invalid' }),
    ).toContain('add "db.invalid:<port>" to testEnvironmentOptions.understudy.network.allow');
  });

  it('says of a loopback port that no server of the process listens there, and how a local model server is served', () => {
    const message = blockedMessage({
      transport: 'fetch',
      host: 'localhost',
      port: 11434,
      request: 'POST http://localhost:11434/v1/chat/completions',
    });
    expect(message).toBe(
      'POST http://localhost:11434/v1/chat/completions reached the network layer, but nothing mocks it ' +
        '(transport: fetch, host: localhost, port: 11434).\n' +
        "  No server of this test process listens on port 11434: loopback passes only to those (a server the test starts, supertest's).\n" +
        '  A local model server is a provider, and served when listed: testEnvironmentOptions.understudy.providers.ollama: true for Ollama on localhost:11434, providers.litellm for a LiteLLM proxy, providers.openai.baseURL for another OpenAI-compatible one.\n' +
        '  To let it through untouched, add "localhost:11434" to testEnvironmentOptions.understudy.network.allow.',
    );
  });
});

describe('network.allow patterns', () => {
  it('reads host:port, [v6]:port, *.domain:port and host:*', () => {
    expect(parseAllowPattern('localhost:5432')).toEqual({
      text: 'localhost:5432',
      host: 'localhost',
      wildcard: false,
      port: 5432,
    });
    expect(parseAllowPattern('[::1]:8080')).toMatchObject({ host: '::1', port: 8080 });
    expect(parseAllowPattern('*.Internal.test:443')).toMatchObject({
      host: '.internal.test',
      wildcard: true,
      port: 443,
    });
    expect(parseAllowPattern('db.internal.test:*')).toMatchObject({ port: '*' });
  });

  it('says what is wrong with a pattern, with the fix', () => {
    expect(parseAllowPattern('localhost')).toBe(
      'has no port; give one, or "*" for every port (e.g. "localhost:5432", "*.internal.test:443" or "db.internal.test:*")',
    );
    expect(parseAllowPattern('https://db.internal.test/x')).toBe(
      'is a URL; give a host:port pattern instead, here "db.internal.test:443"',
    );
    expect(parseAllowPattern('::1:5432')).toBe(
      'is an IPv6 address without brackets; write it as "[::1]:5432"',
    );
    expect(parseAllowPattern('db:99999')).toBe(
      'has port "99999"; a port is a number from 1 to 65535, or "*"',
    );
    expect(parseAllowPattern('db host:1')).toMatch(/^has host "db host"; a host is a name/);
    expect(parseAllowPattern('*:443')).toMatch(/^has host "\*"/);
  });
});

describe('where a core-module call would connect', () => {
  it('reads net connect arguments as Node does', () => {
    const cb = () => {};
    expect(netTarget([{ host: 'a.invalid', port: '5432' }, cb])).toEqual({
      host: 'a.invalid',
      port: 5432,
      callback: cb,
    });
    expect(netTarget([5432, 'a.invalid'])).toEqual({ host: 'a.invalid', port: 5432, callback: undefined });
    expect(netTarget([80])).toMatchObject({ host: 'localhost', port: 80 });
    expect(netTarget([[{ host: '[::1]', port: 1 }, null]])).toMatchObject({ host: '::1', port: 1 });
    expect(netTarget(['/tmp/socket'])).toBeUndefined();
    expect(netTarget([{ path: '/tmp/socket' }])).toBeUndefined();
    // An http.Agent's connection options carry `path: null`, which Node reads as no pipe.
    expect(netTarget([{ host: 'a.invalid', port: 80, path: null }])).toMatchObject({
      host: 'a.invalid',
      port: 80,
    });
    expect(netTarget([{ host: 'a.invalid', port: 70000 }])).toBeUndefined(); // Node throws on it itself
  });

  it('reads tls.connect arguments, options merged over port and host', () => {
    expect(tlsTarget([{ host: 'a.invalid' }])).toMatchObject({ host: 'a.invalid', port: 443 });
    expect(tlsTarget([8443, 'a.invalid', { servername: 's.invalid' }])).toMatchObject({
      host: 'a.invalid',
      port: 8443,
      servername: 's.invalid',
    });
    expect(tlsTarget([{ socket: new net.Socket() }])).toBeUndefined();
    expect(tlsTarget([{ host: 'a.invalid', port: 443, path: null }])).toMatchObject({ host: 'a.invalid' });
    expect(tlsTarget([{ path: '/tmp/socket' }])).toBeUndefined();
  });

  it('reads http2 authorities: strings, URLs and objects, with default ports', () => {
    expect(http2Target('https://h2.invalid')).toEqual({ host: 'h2.invalid', port: 443, protocol: 'https:' });
    expect(http2Target(new URL('http://h2.invalid:8080'))).toEqual({
      host: 'h2.invalid',
      port: 8080,
      protocol: 'http:',
    });
    expect(http2Target({ hostname: 'h2.invalid', port: 444 })).toEqual({
      host: 'h2.invalid',
      port: 444,
      protocol: 'https:',
    });
    expect(http2Target('ftp://h2.invalid')).toBeUndefined();
  });

  it("reads dgram's send and connect overloads; no address is loopback", () => {
    const cb = () => {};
    expect(dgramSendTarget(['m', 53, 'u.invalid', cb])).toEqual({
      host: 'u.invalid',
      port: 53,
      callback: cb,
    });
    expect(dgramSendTarget(['m', 0, 1, 53, 'u.invalid'])).toMatchObject({ host: 'u.invalid', port: 53 });
    expect(dgramSendTarget(['m', 53, cb])).toBeUndefined();
    expect(dgramSendTarget(['m', 53])).toBeUndefined();
    expect(dgramConnectTarget([53, 'u.invalid', cb])).toEqual({ host: 'u.invalid', port: 53, callback: cb });
    expect(dgramConnectTarget([53])).toBeUndefined();
  });

  it('reads DNS server addresses', () => {
    expect(['8.8.8.8', '[2001:db8::1]:53', '::1', '10.0.0.1:5353'].map(hostOfServer)).toEqual([
      '8.8.8.8',
      '2001:db8::1',
      '::1',
      '10.0.0.1',
    ]);
  });
});

/** A guard context that refuses one loopback port (the test's trap) and records what it refused. */
function refusing(port: number) {
  const refused: string[] = [];
  const context: GuardContext = {
    decide: (target) =>
      target.port === port || target.host === 'refused.localhost'
        ? { action: 'refuse', message: blockedMessage(target) }
        : { action: 'pass' },
    refused: (message) => {
      refused.push(message);
    },
    label: (transport) => transport,
  };
  return { context, refused };
}

/** A TCP listener on loopback that counts connections. */
async function trap() {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const undo: Array<() => void> = [];
afterEach(() => {
  for (const restore of undo.splice(0).reverse()) restore();
});

describe('the guards', () => {
  it('refuse a TCP or TLS connection before connecting: the layer below never runs, the listener sees nothing', async () => {
    const listener = await trap();
    const below = jest.fn(net.Socket.prototype.connect);
    undo.push(
      patch(net.Socket.prototype, 'connect', () => below as unknown as typeof net.Socket.prototype.connect),
    );
    const { context, refused } = refusing(listener.port);
    undo.push(
      guardSockets({ ...context, realConnect: below as unknown as typeof net.Socket.prototype.connect }),
    );
    const errors = await Promise.all(
      [net.connect(listener.port, '127.0.0.1'), tls.connect({ host: '127.0.0.1', port: listener.port })].map(
        (socket) => new Promise<NodeJS.ErrnoException>((resolve) => socket.once('error', resolve)),
      ),
    );
    expect(errors.map((e) => e.code)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
    expect(refused).toEqual([
      blockedMessage({ transport: 'net', host: '127.0.0.1', port: listener.port }),
      blockedMessage({ transport: 'tls', host: '127.0.0.1', port: listener.port }),
    ]);
    expect(below).not.toHaveBeenCalled();
    expect(listener.connections).toBe(0);
    await listener.close();
  });

  it('refuse http2 before connecting: the session errors and never says it connected', async () => {
    const listener = await trap();
    const { context, refused } = refusing(listener.port);
    undo.push(guardHttp2(context));
    const session = http2.connect(`http://127.0.0.1:${listener.port}`);
    const events: string[] = [];
    session.on('connect', () => events.push('connect'));
    await new Promise((resolve) =>
      session.once('error', (e: NodeJS.ErrnoException) => resolve(events.push(e.code!))),
    );
    expect(events).toEqual(['ECONNREFUSED']);
    expect(refused).toHaveLength(1);
    expect(listener.connections).toBe(0);
    await listener.close();
  });

  it('refuse a UDP datagram before Node looks the address up', async () => {
    const below = jest.fn(dgram.Socket.prototype.send);
    undo.push(
      patch(dgram.Socket.prototype, 'send', () => below as unknown as typeof dgram.Socket.prototype.send),
    );
    const { context, refused } = refusing(9);
    undo.push(guardDgram(context));
    const socket = dgram.createSocket('udp4');
    const error = await new Promise<Error | null>((resolve) => socket.send('x', 9, '127.0.0.1', resolve));
    socket.close();
    expect(error).toMatchObject({ code: 'ECONNREFUSED', syscall: 'send' });
    expect(refused[0]).toContain('a datagram to 127.0.0.1:9 reached the network layer');
    expect(below).not.toHaveBeenCalled();
  });

  it('refuse a DNS lookup and a query, callback and promise APIs, without calling the resolver', async () => {
    const lookup = jest.fn(dns.lookup);
    const resolve4 = jest.fn(dns.promises.resolve4);
    undo.push(patch(dns, 'lookup', () => lookup as unknown as typeof dns.lookup));
    undo.push(patch(dns.promises, 'resolve4', () => resolve4 as unknown as typeof dns.promises.resolve4));
    const refused: string[] = [];
    undo.push(
      guardDns({
        decide: (t) =>
          t.host === 'refused.localhost' || t.port === 53
            ? { action: 'refuse', message: blockedMessage(t) }
            : { action: 'pass' },
        refused: (m) => {
          refused.push(m);
        },
        label: (t) => t,
      }),
    );
    const viaCallback = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      dns.lookup('refused.localhost', (e) => resolve(e)),
    );
    const viaPromise = await dns.promises.resolve4('anything.invalid').catch((e: NodeJS.ErrnoException) => e);
    expect(viaCallback).toMatchObject({ code: 'ENOTFOUND', syscall: 'getaddrinfo' });
    expect(viaPromise).toMatchObject({ code: 'ECONNREFUSED', syscall: 'query' });
    expect(refused[0]).toContain('a dns lookup of refused.localhost reached the network layer');
    expect(refused[1]).toContain('a dns query for anything.invalid reached the network layer');
    expect(lookup).not.toHaveBeenCalled();
    expect(resolve4).not.toHaveBeenCalled();
  });

  it('put back every function and slot they replaced', () => {
    const replaced = () => [
      net.Socket.prototype.connect,
      tls.connect,
      http2.connect,
      dgram.Socket.prototype.send,
      dgram.Socket.prototype.connect,
      dns.lookup,
      dns.promises.lookup,
      dns.Resolver.prototype.resolve4,
      workerThreads.Worker,
    ];
    const before = replaced();
    const realm: Record<symbol, unknown> = {};
    const { context } = refusing(1);
    const restores = [
      guardSockets({ ...context, realConnect: net.Socket.prototype.connect }),
      guardHttp2(context),
      guardDgram(context),
      guardDns(context),
      installDispatcher(realm, { dispatch: () => true, close: () => {}, destroy: () => {} }),
      patchWorker([]),
    ];
    expect(replaced().filter((f, i) => f === before[i])).toEqual([]);
    expect((workerThreads.Worker as unknown as Record<symbol, unknown>)[GUARDED]).toBe(true);
    expect(DISPATCHER_KEYS.map((key) => typeof realm[key])).toEqual(['object', 'object']);
    for (const restore of restores.reverse()) restore();
    expect(replaced()).toEqual(before);
    expect(Object.getOwnPropertySymbols(realm)).toEqual([]);
  });
});

describe("undici's dispatcher", () => {
  it('refuses a request before connecting, naming it; after close it fails every request', async () => {
    const undici = require('undici') as typeof import('undici');
    const listener = await trap();
    const { context, refused } = refusing(listener.port);
    const interception = createInterception({
      ...context,
      Agent: undici.Agent as unknown as Parameters<typeof createInterception>[0]['Agent'],
      transport: 'undici',
    });
    const dispatcher = interception.dispatcher as unknown as import('undici').Dispatcher;
    const url = `http://127.0.0.1:${listener.port}/collect`;
    const first = await undici.request(url, { method: 'POST', body: 'x', dispatcher }).catch((e: Error) => e);
    await interception.close();
    const late = await undici.request('http://127.0.0.1:1/late', { dispatcher }).catch((e: Error) => e);
    expect(first).toMatchObject({ code: 'ECONNREFUSED' });
    expect(refused).toEqual([
      blockedMessage({ transport: 'undici', host: '127.0.0.1', port: listener.port, request: `POST ${url}` }),
    ]);
    expect((late as Error).message).toContain('the test file had already finished');
    expect(listener.connections).toBe(0);
    await listener.close();
  });

  it("names a refused request for the undici that made it where the package and Node's fetch share the dispatcher", async () => {
    const undici = require('undici') as typeof import('undici');
    const listener = await trap();
    const { context, refused } = refusing(listener.port);
    const interception = createInterception({
      ...context,
      Agent: undici.Agent as unknown as Parameters<typeof createInterception>[0]['Agent'],
      transport: 'fetch',
      namesCaller: true,
    });
    const dispatcher = interception.dispatcher as unknown as import('undici').Dispatcher;
    const url = `http://127.0.0.1:${listener.port}/collect`;
    await undici.request(url, { method: 'POST', body: 'x', dispatcher }).catch((e: Error) => e);
    await interception.close();
    expect(refused).toEqual([
      blockedMessage({ transport: 'undici', host: '127.0.0.1', port: listener.port, request: `POST ${url}` }),
    ]);
    expect(listener.connections).toBe(0);
    await listener.close();
  });

  it("tells the undici package's frames from Node's own fetch on the stack", () => {
    const frames = (...lines: string[]) => ['Error', ...lines.map((l) => `    at ${l}`)].join('\n');
    const ours =
      'InterceptionDispatcher.dispatch (/p/node_modules/jest-understudy/dist/environment/network/dispatcher.js:1:1)';
    expect(
      callerTransport('fetch', frames(ours, 'httpNetworkFetch (node:internal/deps/undici/undici:10:1)')),
    ).toBe('fetch');
    expect(
      callerTransport(
        'fetch',
        frames(ours, 'httpNetworkFetch (/p/node_modules/undici/lib/web/fetch/index.js:2:3)'),
      ),
    ).toBe('undici');
    expect(
      callerTransport('fetch', frames(ours, 'C:\\p\\node_modules\\undici\\lib\\api\\api-request.js:1:1')),
    ).toBe('undici');
    expect(callerTransport('fetch', frames(ours, 'main (/p/app.js:1:1)'))).toBe('fetch');
  });
});

describe('the socket server', () => {
  it('answers a served connection through the hooks, in the async context of the write that sent the request', async () => {
    const run = new AsyncLocalStorage<string>();
    const seen: Array<[string, string | undefined, string]> = [];
    const bridge = await SocketServer.start(
      {
        handle: async (request) => {
          seen.push([request.url, run.getStore(), await request.text()]);
          return new Response('served', { headers: { 'x-served': 'yes' } });
        },
        unhandled: () => {},
      },
      net.Socket.prototype.connect,
    );
    const ask = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = new net.Socket();
        bridge.attach(socket, 'https://api.example.test', 'tls');
        let data = '';
        socket.on('data', (chunk) => {
          data += chunk;
        });
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: api.example.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`,
        );
      });
    const answers = await Promise.all([
      run.run('first', () => ask('/v1/a')),
      run.run('second', () => ask('/v1/b')),
    ]);
    await bridge.close();
    expect(
      answers.map((a) => [a.startsWith('HTTP/1.1 200'), a.includes('x-served: yes'), a.includes('served')]),
    ).toEqual([
      [true, true, true],
      [true, true, true],
    ]);
    expect(seen.sort()).toEqual([
      ['https://api.example.test/v1/a', 'first', 'hi'],
      ['https://api.example.test/v1/b', 'second', 'hi'],
    ]);
  });
});

describe('the listening servers of this process', () => {
  const listen = (host: string) =>
    new Promise<net.Server>((resolve) => {
      const server = net.createServer();
      server.listen(0, host, () => resolve(server));
    });
  const closed = (server: net.Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;
  const at = (host: string, port: number, transport = 'net'): Target => ({ transport, host, port });

  it('counts a loopback server from the moment it listens until it closes, by address family', async () => {
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    try {
      const v4 = await listen('127.0.0.1');
      const port = portOf(v4);
      expect([ports.reaches(at('127.0.0.1', port)), ports.reaches(at('localhost', port))]).toEqual([
        true,
        true,
      ]);
      // Nothing of this process listens on [::1] at that port: another process may.
      expect(ports.reaches(at('::1', port))).toBe(false);
      expect(ports.reaches(at('127.0.0.1', port, 'dgram'))).toBe(false);
      expect(ports.reaches(at('tracker.invalid', port))).toBe(false);
      await closed(v4);
      expect(ports.reaches(at('127.0.0.1', port))).toBe(false);
      const dual = await listen('::');
      const dualPort = portOf(dual);
      expect([ports.reaches(at('127.0.0.1', dualPort)), ports.reaches(at('::1', dualPort))]).toEqual([
        true,
        true,
      ]);
      await closed(dual);
      expect(ports.reaches(at('::1', dualPort))).toBe(false);
    } finally {
      stop();
    }
  });

  it('knows a port as soon as listen() returns (supertest asks for it at once), and a server listening again', async () => {
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    const server = net.createServer();
    try {
      // Without a host there is no lookup: the port is bound when listen() returns.
      server.listen(0);
      const first = portOf(server);
      expect(ports.reaches(at('127.0.0.1', first))).toBe(true);
      await closed(server);
      expect(ports.reaches(at('127.0.0.1', first))).toBe(false);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      expect(ports.reaches(at('127.0.0.1', portOf(server)))).toBe(true);
      await closed(server);
    } finally {
      stop();
    }
  });

  it("counts a server before the caller's own listening callbacks run (one may hand the port to another thread)", async () => {
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    const server = net.createServer();
    const udp = dgram.createSocket('udp4');
    try {
      // With a host, listen() looks it up first: the port is bound only when 'listening' fires.
      const tcp = await new Promise<boolean>((resolve) =>
        server.listen(0, 'localhost', () => resolve(ports.reaches(at('127.0.0.1', portOf(server))))),
      );
      const datagrams = await new Promise<boolean>((resolve) =>
        udp.bind(0, 'localhost', () => resolve(ports.reaches(at('127.0.0.1', udp.address().port, 'dgram')))),
      );
      expect([tcp, datagrams]).toEqual([true, true]);
    } finally {
      udp.close();
      await closed(server);
      stop();
    }
  });

  it('finds servers that were listening before, and counts UDP sockets bound on loopback for datagrams only', async () => {
    const before = await listen('127.0.0.1');
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    const udp = dgram.createSocket('udp4');
    try {
      expect(ports.reaches(at('127.0.0.1', portOf(before)))).toBe(true);
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      const udpPort = udp.address().port;
      expect(ports.reaches(at('127.0.0.1', udpPort, 'dgram'))).toBe(true);
      expect(ports.reaches(at('127.0.0.1', udpPort, 'worker dgram'))).toBe(true);
      expect(ports.reaches(at('127.0.0.1', udpPort, 'net'))).toBe(false);
    } finally {
      udp.close();
      await closed(before);
      stop();
    }
  });

  it('commits its memory with the first server, in whichever thread listens first, and each thread sees the other', async () => {
    const ports = ListeningPorts.create();
    expect(ports.buffer.byteLength).toBe(0);
    expect(ports.reaches(at('127.0.0.1', 4000))).toBe(false);
    // The worker holds the buffer from before any server listened, as a worker the test starts early does.
    const worker = new workerThreads.Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const counts = new Int32Array(workerData);
       parentPort.on('message', ({ read, listen }) => {
         if (listen !== undefined) {
           if (workerData.byteLength < workerData.maxByteLength) workerData.grow(workerData.maxByteLength);
           Atomics.add(counts, listen, 1);
         }
         parentPort.postMessage(read === undefined ? 'counted' : [counts.length, Atomics.load(counts, read)]);
       });`,
      { eval: true, workerData: ports.buffer },
    );
    const ask = (message: object) =>
      new Promise<unknown>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage(message);
      });
    try {
      const stop = ports.add([0], 4000);
      expect(ports.buffer.byteLength).toBe(3 * 65536 * 4);
      expect(await ask({ read: 4000 })).toEqual([3 * 65536, 1]);
      stop();
      expect(await ask({ read: 4000 })).toEqual([3 * 65536, 0]);
      expect(ports.reaches(at('127.0.0.1', 4000))).toBe(false);
      await ask({ listen: 4001 });
      expect([ports.reaches(at('127.0.0.1', 4001)), ports.reaches(at('::1', 4001))]).toEqual([true, false]);
    } finally {
      await worker.terminate();
    }
  });

  it('a file whose threads start no server reaches no port and commits no memory', async () => {
    const ports = ListeningPorts.create();
    const stop = watchListening(ports);
    try {
      expect([ports.reaches(at('127.0.0.1', 65535)), ports.reaches(at('::1', 1))]).toEqual([false, false]);
      expect(ports.buffer.byteLength).toBe(0);
      const server = await listen('127.0.0.1');
      expect(ports.reaches(at('127.0.0.1', portOf(server)))).toBe(true);
      await closed(server);
    } finally {
      stop();
    }
  });

  it('puts back listen and bind', () => {
    const { listen: netListen } = net.Server.prototype;
    const { bind } = dgram.Socket.prototype;
    const stop = watchListening(ListeningPorts.create());
    expect(net.Server.prototype.listen).not.toBe(netListen);
    stop();
    expect([net.Server.prototype.listen, dgram.Socket.prototype.bind]).toEqual([netListen, bind]);
  });
});

describe('worker threads', () => {
  it('start with the guards installed: their undici dispatcher is the interception one', async () => {
    const kind = await new Promise((resolve, reject) => {
      const worker = new workerThreads.Worker(
        `const { parentPort } = require('node:worker_threads');
         parentPort.postMessage(globalThis[Symbol.for('undici.globalDispatcher.1')]?.constructor.name);`,
        { eval: true },
      );
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(kind).toBe('InterceptionDispatcher');
  });
});
