import dgram from 'node:dgram';
import dns from 'node:dns';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import workerThreads from 'node:worker_threads';

const GUARDED = Symbol.for('jest-understudy.guarded');

/** The core-module functions the network guards replace, by name, with whether each is a guard now. */
export function guarded(): Record<string, boolean> {
  const functions: Record<string, unknown> = {
    'net.Socket.prototype.connect': net.Socket.prototype.connect,
    'tls.connect': tls.connect,
    'http2.connect': http2.connect,
    'http.request': http.request,
    'https.get': https.get,
    'dgram.Socket.prototype.send': dgram.Socket.prototype.send,
    'dns.lookup': dns.lookup,
    'dns.promises.resolve4': dns.promises.resolve4,
    'dns.Resolver.prototype.resolveTxt': dns.Resolver.prototype.resolveTxt,
    'worker_threads.Worker': workerThreads.Worker,
  };
  return Object.fromEntries(
    Object.entries(functions).map(([name, f]) => [name, Boolean((f as Record<symbol, unknown>)[GUARDED])]),
  );
}
