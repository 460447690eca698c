/**
 * The connection layer: every TCP connection of the process (net, tls, and what is built on
 * them: undici's own agents, http, http2, ws) calls `net.Socket.prototype.connect`, and TLS
 * ones start in `tls.connect`. The guard decides there, before Node looks a name up or sends
 * a SYN: a served host is connected to the socket server instead, loopback goes on, anything
 * else fails the test and the socket errors without ever connecting.
 *
 * msw 3 intercepts at the same prototype method and answers node:http requests there. The
 * guard wraps it: sockets a `http.request` opens go to msw (whose catch-all applies the same
 * policy), the guard's own sockets skip it. msw 2 intercepts one level up, at `http.request` and
 * `https.request`. Neither can answer a WebSocket upgrade, so under both a `http(s).request`
 * that asks for one to a served host goes to Node's own request function, whose socket the guard
 * connects to the socket server.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { afterRefusal, GUARDED, type GuardContext, Patches, patch } from './guard';
import type { LazyInterceptor } from './lazy';
import { blockedMessage, originOf, refusalError, type Target } from './policy';
import { netTarget, tlsTarget } from './targets';

type Connect = typeof net.Socket.prototype.connect;

/** `http.request`, `http.get`, `https.request`, `https.get` and `http.ClientRequest`. */
export interface RequestFunctions {
  http: Pick<typeof http, 'request' | 'get' | 'ClientRequest'>;
  https: Pick<typeof https, 'request' | 'get'>;
}

/** The request functions as they are now: Node's own when no interceptor is installed yet. */
export function requestFunctions(): RequestFunctions {
  return {
    http: { request: http.request, get: http.get, ClientRequest: http.ClientRequest },
    https: { request: https.request, get: https.get },
  };
}

export interface SocketGuardOptions extends GuardContext {
  /** Node's own `connect`, below any interceptor. */
  realConnect: Connect;
  /** Node's own request functions, below any interceptor (msw 2 wraps them). */
  realRequests?: RequestFunctions;
  /** Connects a plain socket to the socket server in place of a served origin (the test's thread only). */
  attach?: (socket: net.Socket, origin: string, transport: string) => void;
  /** msw, when it starts on a node:http request (the test's thread only): it goes beneath the guard. */
  interceptor?: LazyInterceptor;
}

let internal = 0;

/** Runs `open` with the guard out of the way: the socket server's and the real upstream's own connections. */
export function asInternal<T>(open: () => T): T {
  internal++;
  try {
    return open();
  } finally {
    internal--;
  }
}

export function guardSockets(options: SocketGuardOptions): () => void {
  const patches = new Patches();
  const { realConnect, attach, interceptor } = options;
  const real = options.realRequests ?? requestFunctions();
  // What is beneath the guard's functions: Node's own, or msw's where msw runs (set when msw starts).
  const beneath = {
    connect: net.Socket.prototype.connect,
    http: requestFunctions().http,
    https: requestFunctions().https,
  };
  // With msw 3 a node:http request is answered on its socket: leave those sockets to msw.
  const mswSockets = () => beneath.connect !== realConnect;
  // With msw 2 it is answered by the request function msw put in place of Node's.
  const mswRequests = () =>
    beneath.http.request !== real.http.request || beneath.https.request !== real.https.request;
  let clientRequests = 0;
  const toMsw = () => clientRequests > 0 && mswSockets();
  // A node:http request is answered by msw (or a user's msw handler): msw starts on the first.
  const startMsw = () => {
    if (interceptor && !interceptor.started) interceptor.start();
  };
  const servedUpgrade = (secure: boolean, args: unknown[]) => {
    const target = attach && upgradeTarget(secure, args, options.label('websocket'));
    return target !== undefined && options.decide(target).action === 'serve';
  };

  const refuse = (socket: net.Socket, target: Target, message: string) => {
    afterRefusal(options, message, () => socket.destroy(refusalError(target)));
    return socket;
  };

  patches.add(
    patch(
      net.Socket.prototype,
      'connect',
      () =>
        function connect(this: net.Socket, ...args: unknown[]) {
          if (internal > 0) return realConnect.apply(this, args as Parameters<Connect>);
          if (toMsw()) return beneath.connect.apply(this, args as Parameters<Connect>);
          const endpoint = netTarget(args);
          if (!endpoint) return beneath.connect.apply(this, args as Parameters<Connect>);
          const secure = this instanceof tls.TLSSocket;
          const target: Target = {
            transport: options.label(secure ? 'tls' : 'net'),
            host: endpoint.host,
            port: endpoint.port,
            protocol: secure ? 'https:' : 'http:',
          };
          const verdict = options.decide(target);
          // Past msw: its socket interceptor would fake the connect and wait for an HTTP request,
          // and a database whose server speaks first (MySQL) would wait for ever.
          if (verdict.action === 'pass') return realConnect.apply(this, args as Parameters<Connect>);
          if (verdict.action === 'serve' && attach && !secure) {
            if (endpoint.callback) this.once('connect', endpoint.callback);
            attach(this, originOf(target)!, target.transport);
            return this;
          }
          // A TLS socket not opened by tls.connect cannot be served: it would handshake with the socket server.
          return refuse(this, target, verdict.action === 'refuse' ? verdict.message : blockedMessage(target));
        } as Connect,
    ),
  );

  patches.add(
    patch(
      tls,
      'connect',
      (nextTls) =>
        function connect(this: unknown, ...args: unknown[]) {
          const endpoint = internal > 0 || toMsw() || !attach ? undefined : tlsTarget(args);
          const target: Target | undefined = endpoint && {
            transport: options.label('tls'),
            host: endpoint.host,
            port: endpoint.port,
            protocol: 'https:',
          };
          // Passed and refused connections are decided again, and acted on, by the socket's own connect.
          if (!target || !endpoint || options.decide(target).action !== 'serve')
            return (nextTls as (...a: unknown[]) => tls.TLSSocket).apply(this, args);
          const socket = servedTlsSocket(endpoint.servername ?? endpoint.host);
          socket.once('connect', () => socket.emit('secureConnect'));
          if (endpoint.callback) socket.once('secureConnect', endpoint.callback);
          attach!(socket, originOf(target)!, target.transport);
          return socket;
        } as typeof tls.connect,
    ),
  );

  if (interceptor || mswSockets() || mswRequests()) {
    // A WebSocket upgrade to a served host skips msw (it cannot answer an upgrade): Node's own
    // request function opens it, and the guard connects its socket to the socket server, where
    // the host's socket protocol serves it. Other upgrades go to msw, whose catch-all applies the policy.
    const counted = (module: 'http' | 'https', name: 'request' | 'get') => {
      const own = real[module][name] as (...a: unknown[]) => unknown;
      const secure = module === 'https';
      return function (this: unknown, ...args: unknown[]) {
        if (servedUpgrade(secure, args)) return own.apply(this, args);
        startMsw();
        const f = beneath[module][name] as (...a: unknown[]) => unknown;
        clientRequests++;
        try {
          return f.apply(this, args);
        } finally {
          clientRequests--;
        }
      };
    };
    for (const [module, name] of [
      ['http', 'request'],
      ['http', 'get'],
      ['https', 'request'],
      ['https', 'get'],
    ] as const)
      patches.add(patch(module === 'http' ? http : https, name, () => counted(module, name) as never));
    // `new http.ClientRequest(...)` is a request as well; msw 2 stands in for the constructor.
    const own = real.http.ClientRequest;
    patches.add(
      patch(
        http,
        'ClientRequest',
        () =>
          new Proxy(own, {
            // The mark is the proxy's own: defining it would land on Node's ClientRequest.
            get: (target, key, receiver) => (key === GUARDED ? true : Reflect.get(target, key, receiver)),
            construct: (_target, args: unknown[], newTarget) => {
              if (servedUpgrade(false, args)) return Reflect.construct(own, args, newTarget);
              startMsw();
              return Reflect.construct(beneath.http.ClientRequest, args, newTarget);
            },
          }),
      ),
    );
  }
  interceptor?.layer((start) => {
    // msw patches what is in place when it starts: Node's own functions, beneath the guard's.
    const slots = [
      [net.Socket.prototype, 'connect', beneath, 'connect'],
      ...(['request', 'get', 'ClientRequest'] as const).map(
        (name) => [http, name, beneath.http, name] as const,
      ),
      ...(['request', 'get'] as const).map((name) => [https, name, beneath.https, name] as const),
    ] as unknown as Array<[Record<string, unknown>, string, Record<string, unknown>, string]>;
    const tops = slots.map(([owner, key, below, name]) => {
      const top = owner[key];
      owner[key] = below[name];
      return top;
    });
    try {
      start();
    } finally {
      slots.forEach(([owner, key, below, name], i) => {
        below[name] = owner[key];
        owner[key] = tops[i];
      });
    }
  });
  return () => patches.restore();
}

/**
 * The target of an `http.request(url?, options?, callback?)` that asks for a WebSocket upgrade
 * (as the `ws` package makes it), or undefined for any other request.
 */
export function upgradeTarget(secure: boolean, args: unknown[], transport: string): Target | undefined {
  let url: URL | undefined;
  let options: Record<string, unknown> = {};
  for (const arg of args) {
    if (typeof arg === 'string' || arg instanceof URL) {
      try {
        url = new URL(String(arg));
      } catch {
        return undefined;
      }
    } else if (arg && typeof arg === 'object') options = arg as Record<string, unknown>;
  }
  const headers = (options.headers ?? {}) as Record<string, unknown>;
  if (Array.isArray(headers)) return undefined;
  const upgrade = Object.entries(headers).find(([name]) => name.toLowerCase() === 'upgrade')?.[1];
  if (String(upgrade).toLowerCase() !== 'websocket') return undefined;
  const protocol = (options.protocol ?? url?.protocol ?? (secure ? 'https:' : 'http:')) as string;
  const rawHost = (options.hostname ?? options.host ?? url?.hostname ?? 'localhost') as string;
  const host = String(rawHost).replace(/^\[|\]$/g, '');
  const port = Number(options.port ?? url?.port) || (protocol === 'https:' ? 443 : 80);
  const path = (options.path ?? (url ? url.pathname + url.search : '/')) as string;
  const scheme = protocol === 'https:' ? 'wss:' : 'ws:';
  const origin = originOf({ transport, host, port, protocol: protocol === 'https:' ? 'https:' : 'http:' });
  return {
    transport,
    host,
    port,
    protocol: protocol === 'https:' ? 'https:' : 'http:',
    request: `WebSocket ${origin?.replace(/^http(s?):/, scheme) ?? ''}${path}`,
  };
}

type Attach = (socket: net.Socket, origin: string, transport: string) => void;

/**
 * An undici `connect` option that connects every socket to the socket server, as the guard does
 * for a served origin: for a dispatcher that sends a request to the runtime whatever its host.
 */
export function socketServerConnector(attach: Attach, transport: string) {
  return (
    opts: { hostname: string; port: string; protocol: string; servername?: string },
    callback: (error: Error | null, socket?: net.Socket) => void,
  ) => {
    const secure = opts.protocol === 'https:';
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (secure ? 443 : 80);
    const origin = originOf({ transport, host, port, protocol: secure ? 'https:' : 'http:' })!;
    const socket = secure ? servedTlsSocket(opts.servername ?? host) : new net.Socket();
    socket.once('connect', () => {
      if (secure) socket.emit('secureConnect');
      callback(null, socket);
    });
    socket.once('error', (error) => callback(error));
    attach(socket, origin, transport);
    return socket;
  };
}

/**
 * A plain socket that passes for a TLS one: the socket server speaks HTTP in the clear, and the client
 * (undici's connector, https) reads what a verified TLS socket would tell it.
 */
function servedTlsSocket(servername: string): tls.TLSSocket {
  const socket = new net.Socket() as net.Socket & Record<string, unknown>;
  Object.assign(socket, {
    encrypted: true,
    authorized: true,
    authorizationError: null,
    alpnProtocol: false,
    servername,
    getPeerCertificate: () => ({}),
    getCertificate: () => null,
    getProtocol: () => 'TLSv1.3',
    getCipher: () => ({
      name: 'TLS_AES_128_GCM_SHA256',
      standardName: 'TLS_AES_128_GCM_SHA256',
      version: 'TLSv1.3',
    }),
    getSession: () => undefined,
    getTLSTicket: () => undefined,
    isSessionReused: () => false,
    setServername: () => {},
    setMaxSendFragment: () => true,
    exportKeyingMaterial: () => Buffer.alloc(0),
  });
  return socket as unknown as tls.TLSSocket;
}
