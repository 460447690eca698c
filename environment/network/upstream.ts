/**
 * Record and live modes send model calls to the real provider. Those connections are the
 * environment's own: they skip the guard, msw and the patched DNS lookup, and go out through
 * Node's own connect and TLS, with undici's agent on top.
 */
import type dns from 'node:dns';
import net, { isIP } from 'node:net';
import type tls from 'node:tls';
import type { UpstreamRequest } from '../../src/record/recording';
import type { UpstreamSocket, UpstreamSocketRequest } from '../../src/sockets/protocol';
import type { Dispatcher } from './dispatcher';
import { asInternal } from './sockets';

export interface RealNetwork {
  connect: typeof net.Socket.prototype.connect;
  tlsConnect: typeof tls.connect;
  lookup: typeof dns.lookup;
  /** The host's fetch before msw patched it. */
  fetch: typeof fetch;
  /** Node's own WebSocket, before msw patched it. */
  WebSocket: typeof WebSocket | undefined;
}

interface ConnectOptions {
  hostname: string;
  port: string;
  protocol: string;
  servername?: string;
}

export interface Upstream {
  fetch(request: UpstreamRequest): Promise<Response>;
  /** A WebSocket to the provider (socket sessions in record and live modes), over the same connections. */
  socket(request: UpstreamSocketRequest): UpstreamSocket | undefined;
  close(): Promise<void>;
}

/** `Agent` gives Node's Agent class when the first upstream connection is made (it may load Node's undici). */
export function createUpstream(
  Agent: () => new (options: { connect: unknown }) => Dispatcher,
  real: RealNetwork,
): Upstream {
  const connect = (opts: ConnectOptions, callback: (error: Error | null, socket?: net.Socket) => void) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const secure = opts.protocol === 'https:';
    const port = Number(opts.port) || (secure ? 443 : 80);
    let settled = false;
    const done = (error: Error | null, socket?: net.Socket) => {
      if (settled) return;
      settled = true;
      callback(error, socket);
    };
    let socket: net.Socket;
    if (secure) {
      const servername = opts.servername ?? (isIP(host) ? undefined : host);
      socket = asInternal(() =>
        real.tlsConnect({ host, port, servername, ALPNProtocols: ['http/1.1'], lookup: real.lookup }),
      );
      socket.once('secureConnect', () => done(null, socket));
    } else {
      socket = new net.Socket();
      (real.connect as (options: net.NetConnectOpts) => net.Socket).call(socket, {
        host,
        port,
        lookup: real.lookup,
      });
      socket.once('connect', () => done(null, socket));
    }
    socket.setNoDelay(true);
    socket.once('error', (error) => done(error));
    return socket;
  };
  let made: Dispatcher | undefined;
  const agent = () => {
    made ??= new (Agent())({ connect });
    return made;
  };
  return {
    fetch(r) {
      const init: RequestInit & { dispatcher: Dispatcher } = {
        method: r.method,
        headers: r.headers,
        signal: r.signal ?? null,
        dispatcher: agent(),
      };
      if (r.method !== 'GET' && r.method !== 'HEAD') init.body = r.body;
      return real.fetch(r.url, init);
    },
    socket(r) {
      // Made first: making it loads Node's undici, and Node's WebSocket is read once that is loaded.
      const dispatcher = agent();
      if (!real.WebSocket) return undefined;
      // undici's WebSocketInit: the client's headers and subprotocols, over the upstream's own agent.
      const init = { protocols: r.protocols, headers: r.headers, dispatcher };
      return new real.WebSocket(r.url, init as unknown as string[]) as unknown as UpstreamSocket;
    },
    async close() {
      if (made) await Promise.resolve(made.destroy()).catch(() => {});
    },
  };
}
