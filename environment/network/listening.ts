/**
 * Which loopback ports a server of this test process listens on: connections to them pass the
 * network policy (supertest against the app under test, an MCP server the test started, a local
 * mock server), connections to any other loopback port fail like any unserved host.
 *
 * Every TCP server (net, http, https, http2, tls) listens through `net.Server.prototype.listen`
 * and every UDP socket binds through `dgram.Socket.prototype.bind`; core modules are shared by
 * the host and the sandbox realm, so one patch per thread sees the servers of both. Servers that
 * were already listening when the file started are found among the process's active handles.
 * The counts live in shared memory, handed to every worker thread the test starts (and theirs):
 * a server started in a worker is reachable from the test's thread, and the other way round.
 * That memory is reserved with each file and committed by the first server that listens, in any of
 * the file's threads: most test files start none, and a committed buffer per file is ~0.15 ms of
 * allocation and collection.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import workerThreads from 'node:worker_threads';
import { Patches, patch } from './guard';
import { isLoopback, type Target } from './policy';

/** Where the test's thread hands the counts to its workers (`worker_threads` environment data). */
const DATA_KEY = 'jest-understudy.network';

const PORTS = 65536;
/** Count regions: TCP on IPv4 addresses, TCP on IPv6 addresses, UDP. */
const TCP4 = 0;
const TCP6 = PORTS;
const UDP = 2 * PORTS;
const BYTES = 3 * PORTS * Int32Array.BYTES_PER_ELEMENT;

/** ES2024's growable SharedArrayBuffer, which the package's TypeScript lib predates (Node >= 20 has it). */
interface GrowableBuffer extends SharedArrayBuffer {
  grow(byteLength: number): void;
}
const GrowableBuffer = SharedArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => GrowableBuffer;

/** What the test's thread shares with its workers. */
export interface SharedNetwork {
  counts: SharedArrayBuffer;
  /** `network.allow`, as given (validated). */
  allow: string[];
}

export class ListeningPorts {
  /** Tracks the buffer's length: empty until a server of any of the file's threads counts itself in. */
  private readonly counts: Int32Array;

  private constructor(readonly buffer: GrowableBuffer) {
    this.counts = new Int32Array(buffer);
  }

  static create(): ListeningPorts {
    return new ListeningPorts(new GrowableBuffer(0, { maxByteLength: BYTES }));
  }

  static of(buffer: SharedArrayBuffer): ListeningPorts {
    return new ListeningPorts(buffer as GrowableBuffer);
  }

  /** Whether a loopback target reaches a port a server of this process listens on. */
  reaches(target: Target): boolean {
    const { port, host } = target;
    if (port === undefined || port <= 0 || port >= PORTS || !isLoopback(host)) return false;
    const counts = this.counts;
    const at = (region: number) => region + port < counts.length && Atomics.load(counts, region + port) > 0;
    if (/(^| )dgram$/.test(target.transport)) return at(UDP);
    const h = host.toLowerCase().replace(/^\[|\]$/g, '');
    if (h === 'localhost' || h === 'localhost.') return at(TCP4) || at(TCP6);
    return net.isIP(h) === 6 && !h.startsWith('::ffff:') ? at(TCP6) : at(TCP4);
  }

  /** Counts a listening socket in; returns what counts it out (once). */
  add(regions: number[], port: number): () => void {
    // Growing to the length it has is allowed: threads that race here all get the whole buffer.
    if (this.buffer.byteLength < BYTES) this.buffer.grow(BYTES);
    for (const region of regions) Atomics.add(this.counts, region + port, 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      for (const region of regions) Atomics.sub(this.counts, region + port, 1);
    };
  }
}

/** The regions a bound address reaches from loopback; none for an address loopback cannot reach. */
function regionsOf(address: string, family: string | number, udp: boolean): number[] {
  const v6 = family === 'IPv6' || family === 6;
  const reachable = address === '0.0.0.0' || address === '::' || isLoopback(address);
  if (!reachable) return [];
  if (udp) return [UDP];
  if (!v6) return [TCP4];
  // `::` also takes IPv4 connections (dual stack, unless the server asked for ipv6Only).
  return address === '::' ? [TCP4, TCP6] : [TCP6];
}

type Bound = net.Server | dgram.Socket;

/** The counts this thread writes to: its own, or the ones its parent thread shared. */
export function sharedNetwork(): SharedNetwork | undefined {
  const data = workerThreads.getEnvironmentData(DATA_KEY) as SharedNetwork | undefined;
  return data?.counts instanceof SharedArrayBuffer ? data : undefined;
}

/** Hands `data` to every worker thread started from now on; returns what takes it back. */
export function shareWithWorkers(data: SharedNetwork): () => void {
  const previous = workerThreads.getEnvironmentData(DATA_KEY);
  workerThreads.setEnvironmentData(DATA_KEY, data);
  return () => workerThreads.setEnvironmentData(DATA_KEY, previous as never);
}

/**
 * Counts the listening servers and bound UDP sockets of this thread into `ports` (those already
 * listening too); returns what stops it.
 */
export function watchListening(ports: ListeningPorts): () => void {
  const patches = new Patches();
  const seen = new WeakMap<Bound, () => void>();
  const count = (socket: Bound) => {
    if (seen.has(socket)) return;
    const udp = socket instanceof dgram.Socket;
    let address: net.AddressInfo | string | null;
    try {
      address = socket.address();
    } catch {
      return; // not bound yet (a UDP socket before its bind completes)
    }
    if (!address || typeof address === 'string') return; // a pipe
    const regions = regionsOf(address.address, address.family, udp);
    if (regions.length === 0) return;
    const counted = ports.add(regions, address.port);
    const release = () => {
      seen.delete(socket); // a server closed and listening again is counted again
      counted();
    };
    seen.set(socket, release);
    socket.once('close', release);
  };
  const watch = (socket: Bound) => {
    count(socket); // a TCP listen on a port number binds at once: supertest asks for the port right away
    // Before the caller's own listeners: one may hand the port to another thread, which connects
    // at once, while this thread has yet to run the next listener.
    socket.prependOnceListener('listening', () => count(socket));
  };
  // Every TCP server listens through net.Server's `listen`, every UDP socket binds through `bind`.
  const watched = <T extends Bound>(proto: T, key: 'listen' | 'bind') =>
    patch(
      proto as unknown as Record<typeof key, (...args: unknown[]) => unknown>,
      key,
      (original) =>
        function (this: T, ...args: unknown[]) {
          const result = original.apply(this, args);
          watch(this);
          return result;
        },
    );
  patches.add(watched(net.Server.prototype, 'listen'));
  patches.add(watched(dgram.Socket.prototype, 'bind'));
  // Servers the process started before this file (a previous file's, a setup's): those Node still
  // holds the process open for. An unref()'d one is not listed.
  const active = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.() ?? [];
  for (const handle of active)
    if ((handle instanceof net.Server && handle.listening) || handle instanceof dgram.Socket) count(handle);
  return () => patches.restore();
}
