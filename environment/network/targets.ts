/**
 * Where a core-module call would connect, read from its arguments the way Node reads them
 * (net's normalizeArgs, tls.connect's option merge, http2's authority, dgram's send
 * overloads). Pure. Undefined means "nothing to decide": a pipe, an fd, an existing socket,
 * or arguments Node itself rejects (it throws before any lookup).
 */
import { isIP } from 'node:net';

export interface Endpoint {
  host: string;
  port: number;
}

type Args = unknown[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function portOf(value: unknown): number | undefined {
  if (typeof value !== 'number' && typeof value !== 'string') return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  const port = Number(value);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/** `socket.connect(...)`, `net.connect(...)`: also the normalized array net passes to the prototype method. */
export function netTarget(args: Args): (Endpoint & { callback?: () => void }) | undefined {
  const list = Array.isArray(args[0]) ? (args[0] as Args) : args;
  const first = list[0];
  const last = list[list.length - 1];
  const callback = typeof last === 'function' ? (last as () => void) : undefined;
  let options: Record<string, unknown>;
  if (isObject(first)) options = first;
  else if (typeof first === 'string' && Number.isNaN(Number(first)))
    return undefined; // a pipe name
  else options = { port: first, host: typeof list[1] === 'string' ? list[1] : undefined };
  // Node connects a pipe only for a truthy `path`: an http.Agent passes `path: null`.
  if (options.path || options.fd !== undefined) return undefined;
  const port = portOf(options.port);
  if (port === undefined) return undefined;
  const host = typeof options.host === 'string' && options.host !== '' ? bare(options.host) : 'localhost';
  return { host, port, callback };
}

/** `tls.connect(options[, cb])`, `tls.connect(port[, host][, options][, cb])`. */
export function tlsTarget(
  args: Args,
): (Endpoint & { servername?: string; callback?: () => void }) | undefined {
  const first = args[0];
  const last = args[args.length - 1];
  const callback = typeof last === 'function' ? (last as () => void) : undefined;
  let options: Record<string, unknown>;
  if (isObject(first)) options = first;
  else {
    if (typeof first === 'string' && Number.isNaN(Number(first))) return undefined;
    options = { port: first };
    if (typeof args[1] === 'string') options.host = args[1];
    const extra = isObject(args[1]) ? args[1] : isObject(args[2]) ? args[2] : undefined;
    if (extra) options = { ...options, ...extra };
  }
  if (options.socket !== undefined || options.path) return undefined;
  const port = portOf(options.port ?? 443);
  if (port === undefined) return undefined;
  const host = typeof options.host === 'string' && options.host !== '' ? bare(options.host) : 'localhost';
  const servername = typeof options.servername === 'string' ? options.servername : undefined;
  return { host, port, servername, callback };
}

/** `http2.connect(authority, ...)`: a string, a URL or a `{ protocol, host, hostname, port }` object. */
export function http2Target(authority: unknown): (Endpoint & { protocol: 'http:' | 'https:' }) | undefined {
  let url: { protocol?: unknown; hostname?: unknown; host?: unknown; port?: unknown };
  if (typeof authority === 'string') {
    try {
      url = new URL(authority);
    } catch {
      return undefined;
    }
  } else if (isObject(authority)) url = authority;
  else return undefined;
  const protocol =
    url.protocol === 'http:' ? 'http:' : url.protocol === 'https:' || !url.protocol ? 'https:' : undefined;
  if (!protocol) return undefined;
  const rawHost = typeof url.hostname === 'string' && url.hostname ? url.hostname : url.host;
  const host =
    typeof rawHost === 'string' && rawHost !== '' ? bare(rawHost.replace(/:\d+$/, '')) : 'localhost';
  const port = portOf(
    url.port === undefined || url.port === '' ? (protocol === 'http:' ? 80 : 443) : url.port,
  );
  return port === undefined ? undefined : { host, port, protocol };
}

/**
 * `dgram` `send(msg[, offset, length], port[, address][, cb])` on an unconnected socket. No
 * address means the loopback address Node defaults to, so there is nothing to decide.
 */
export function dgramSendTarget(args: Args): (Endpoint & { callback?: (error: Error) => void }) | undefined {
  let [, offset, length, port, address, callback] = args;
  if (!(address || (port && typeof port !== 'function'))) {
    callback = port;
    port = offset;
    address = length;
  }
  if (typeof address === 'function') {
    callback = address;
    address = undefined;
  }
  if (typeof address !== 'string' || address === '') return undefined;
  const p = portOf(port);
  if (p === undefined) return undefined;
  const cb = typeof callback === 'function' ? (callback as (error: Error) => void) : undefined;
  return { host: bare(address), port: p, callback: cb };
}

/** `dgram` `connect(port[, address][, cb])`. */
export function dgramConnectTarget(
  args: Args,
): (Endpoint & { callback?: (error?: Error) => void }) | undefined {
  const [port, address, callback] = args;
  if (typeof address !== 'string' || address === '') return undefined;
  const p = portOf(port);
  if (p === undefined) return undefined;
  const cb = typeof callback === 'function' ? (callback as (error?: Error) => void) : undefined;
  return { host: bare(address), port: p, callback: cb };
}

/** A `host` or `host:port` (DNS servers, `[v6]:port`) without its port. */
export function hostOfServer(server: string): string {
  if (isIP(server)) return server;
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(server);
  if (v6) return v6[1];
  return server.replace(/:\d+$/, '');
}
