/**
 * `http2.connect`: decided on its authority before a socket exists. A served origin gets a
 * session with the socket server; a refused one a session whose socket fails without connecting.
 */
import http2 from 'node:http2';
import net from 'node:net';
import { afterRefusal, type GuardContext, patch } from './guard';
import { blockedMessage, originOf, refusalError, type Target } from './policy';
import { http2Target } from './targets';

type Http2Connect = typeof http2.connect;

export interface Http2GuardOptions extends GuardContext {
  serve?: (
    connect: Http2Connect,
    authority: string | URL,
    options: http2.SecureClientSessionOptions | undefined,
    listener: ((session: http2.ClientHttp2Session) => void) | undefined,
    origin: string,
    transport: string,
  ) => http2.ClientHttp2Session;
}

export function guardHttp2(options: Http2GuardOptions): () => void {
  return patch(
    http2,
    'connect',
    (next) =>
      function connect(this: unknown, authority: string | URL, ...rest: unknown[]) {
        const listener = (typeof rest[rest.length - 1] === 'function' ? rest.pop() : undefined) as
          | ((session: http2.ClientHttp2Session) => void)
          | undefined;
        const sessionOptions = rest[0] as http2.SecureClientSessionOptions | undefined;
        const endpoint = sessionOptions?.createConnection ? undefined : http2Target(authority);
        if (!endpoint) return next.call(this, authority, sessionOptions, listener);
        const target: Target = { transport: options.label('http2'), ...endpoint };
        const verdict = options.decide(target);
        if (verdict.action === 'pass') return next.call(this, authority, sessionOptions, listener);
        if (verdict.action === 'serve' && options.serve)
          return options.serve(
            next,
            authority,
            sessionOptions,
            listener,
            originOf(target)!,
            target.transport,
          );
        const message = verdict.action === 'refuse' ? verdict.message : blockedMessage(target);
        const socket = new net.Socket();
        afterRefusal(options, message, () => socket.destroy(refusalError(target)));
        const session = next.call(
          this,
          authority,
          { ...sessionOptions, createConnection: () => socket },
          listener,
        );
        // A session over a socket without a handle thinks it connected at once; it never did.
        const emit = session.emit;
        session.emit = function (this: http2.ClientHttp2Session, event: string | symbol, ...args: unknown[]) {
          return event === 'connect' ? false : emit.call(this, event, ...args);
        } as typeof session.emit;
        return session;
      } as Http2Connect,
  );
}
