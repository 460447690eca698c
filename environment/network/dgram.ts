/** UDP: `send` to an address and `connect` are decided before Node looks the address up. */
import dgram from 'node:dgram';
import { afterRefusal, type GuardContext, Patches, patch } from './guard';
import { hostPort, refusalError, type Target } from './policy';
import { dgramConnectTarget, dgramSendTarget, type Endpoint } from './targets';

type Callback = ((error: Error) => void) | undefined;

export function guardDgram(options: GuardContext): () => void {
  const patches = new Patches();
  const refused = (
    socket: dgram.Socket,
    endpoint: Endpoint,
    callback: Callback,
    syscall: 'send' | 'connect',
  ) => {
    const target: Target = { transport: options.label('dgram'), host: endpoint.host, port: endpoint.port };
    if (syscall === 'send') target.subject = `a datagram to ${hostPort(target)}`;
    const verdict = options.decide(target);
    if (verdict.action !== 'refuse') return false;
    afterRefusal(options, verdict.message, () => {
      const error = refusalError(target, 'ECONNREFUSED', syscall);
      if (callback) callback(error);
      else if (socket.listenerCount('error') > 0) socket.emit('error', error);
    });
    return true;
  };
  patches.add(
    patch(
      dgram.Socket.prototype,
      'send',
      (next) =>
        function send(this: dgram.Socket, ...args: unknown[]) {
          // A connected socket sends where connect() already decided.
          const endpoint = connected(this) ? undefined : dgramSendTarget(args);
          if (endpoint && refused(this, endpoint, endpoint.callback, 'send')) return;
          return (next as (...a: unknown[]) => void).apply(this, args);
        } as typeof dgram.Socket.prototype.send,
    ),
  );
  patches.add(
    patch(
      dgram.Socket.prototype,
      'connect',
      (next) =>
        function connect(this: dgram.Socket, ...args: unknown[]) {
          const endpoint = dgramConnectTarget(args);
          if (endpoint && refused(this, endpoint, endpoint.callback, 'connect')) return;
          return (next as (...a: unknown[]) => void).apply(this, args);
        } as typeof dgram.Socket.prototype.connect,
    ),
  );
  return () => patches.restore();
}

function connected(socket: dgram.Socket): boolean {
  try {
    socket.remoteAddress();
    return true;
  } catch {
    return false;
  }
}
