/**
 * undici's global dispatcher, kept under `Symbol.for('undici.globalDispatcher.1')` (and `.2`)
 * on a realm's global object and shared by every undici copy there: Node's own fetch and
 * WebSocket on the host, the `undici` package (its `fetch`, `request`, `stream`, `pipeline`,
 * `WebSocket`) in the sandbox. The interception dispatcher decides each request before a
 * connection is made, so a refusal names the request: refused ones fail through an agent that
 * never connects; the rest go on to a real agent, whose connections the socket guard serves
 * (provider and world hosts) or passes. While the test has msw handlers of its own, a request
 * the policy would refuse goes to the runtime first (over the socket server): a handler may
 * answer it; if none does, it fails the test there with the same message.
 */

import type net from 'node:net';
import { UnderstudyError } from '../../src/errors';
import { afterRefusal, type GuardContext } from './guard';
import { blockedMessage, refusalError, requestTarget, type Target } from './policy';
import { socketServerConnector } from './sockets';

export const DISPATCHER_KEYS = [
  Symbol.for('undici.globalDispatcher.1'),
  Symbol.for('undici.globalDispatcher.2'),
];

/** The part of undici's Dispatcher this module relies on (Node's bundled undici, 6 or 7). */
export interface Dispatcher {
  dispatch(options: DispatchOptions, handler: unknown): boolean;
  close(...args: unknown[]): unknown;
  destroy(...args: unknown[]): unknown;
}

export interface DispatchOptions {
  origin?: string | URL;
  path: string;
  method: string;
  upgrade?: string | null;
}

export type AgentClass = new (options?: { connect?: unknown }) => Dispatcher;

/**
 * Node's bundled undici `Agent`, from the host's global dispatcher. Node creates it when it loads
 * its undici, which reading one of the globals undici provides (`Headers`) does without running a
 * request; where something replaced that global, a `data:` fetch makes it exist without a connection.
 */
export function bundledAgent(): AgentClass {
  const host = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  if (host[DISPATCHER_KEYS[0]] === undefined) void globalThis.Headers;
  if (host[DISPATCHER_KEYS[0]] === undefined) void fetch('data:,').catch(() => {});
  const agent = host[DISPATCHER_KEYS[0]] as object | undefined;
  // Node's Agent, or a subclass host code installed.
  for (let proto = agent && Object.getPrototypeOf(agent); proto; proto = Object.getPrototypeOf(proto))
    if (proto.constructor?.name === 'Agent') return proto.constructor as AgentClass;
  throw new UnderstudyError(
    'CONTAINMENT_FAILED',
    "jest-understudy: could not find undici's Agent behind Node's fetch; the network cannot be contained",
  );
}

export interface InterceptionOptions extends GuardContext {
  Agent: AgentClass;
  /** How requests through this dispatcher are named in failures (`undici`, `fetch`, `worker fetch`). */
  transport: string;
  /** Connects a socket to the socket server (the test's thread only). */
  attach?: (socket: net.Socket, origin: string, transport: string) => void;
  /** Whether the test has msw handlers of its own that may answer a request the policy refuses. */
  handlersAnswer?: () => boolean;
  /**
   * Where Node's fetch and the `undici` package share this dispatcher (a runner that runs test
   * files in the thread's own realm, as Vitest does), a refused request is named for the copy of
   * undici that made it, as it is where the package has a dispatcher of its own (Jest's sandbox).
   */
  namesCaller?: boolean;
}

export interface Interception {
  dispatcher: Dispatcher;
  /** Closes the real agent: from then on every request fails, without a connection. */
  close(): Promise<void>;
}

/** A dispatcher object for one realm, with the agents it owns. */
export function createInterception(options: InterceptionOptions): Interception {
  const { Agent } = options;
  const inner = new Agent();
  let closed = false;
  // Never connects (and holds no socket): each attempt fails with the refusal error, through
  // undici's own handler plumbing, whichever handler API the caller's undici speaks.
  const refusing = new Agent({
    connect: (opts: { hostname: string; port: string; protocol: string }, callback: (e: Error) => void) => {
      const port = Number(opts.port) || (opts.protocol === 'http:' ? 80 : 443);
      const error = refusalError({ transport: options.transport, host: opts.hostname, port });
      if (closed) error.message = `${error.message}; the test file had already finished`;
      callback(error);
    },
  });
  const { attach, handlersAnswer } = options;
  const viaRuntime = attach && new Agent({ connect: socketServerConnector(attach, options.transport) });
  const Base = Object.getPrototypeOf(Object.getPrototypeOf(Agent.prototype))
    .constructor as new () => Dispatcher;
  class InterceptionDispatcher extends Base {
    dispatch(opts: DispatchOptions, handler: unknown): boolean {
      // A request still being made after the file's teardown: an error, never the network.
      if (closed) return refusing.dispatch(opts, handler);
      const target = targetOf(opts, options.transport);
      const verdict = target ? options.decide(target) : { action: 'pass' as const };
      // A served host's connection reaches the socket server (through the socket guard), which
      // serves its requests and, in the test's thread, the WebSockets a socket protocol handles.
      if (
        verdict.action === 'pass' ||
        (verdict.action === 'serve' && (target?.transport !== 'websocket' || attach))
      )
        return inner.dispatch(opts, handler);
      if (verdict.action === 'refuse' && viaRuntime && handlersAnswer?.() && !opts.upgrade)
        return viaRuntime.dispatch(opts, handler);
      const named =
        options.namesCaller && !opts.upgrade ? targetOf(opts, callerTransport(options.transport)) : target;
      const final = named === target || !named ? verdict : options.decide(named);
      const message = final.action === 'refuse' ? final.message : blockedMessage(named ?? target!);
      afterRefusal(options, message, () => refusing.dispatch(opts, handler));
      return true;
    }

    close(...args: unknown[]): unknown {
      return inner.close(...args);
    }

    destroy(...args: unknown[]): unknown {
      return inner.destroy(...args);
    }
  }
  const dispatcher = new InterceptionDispatcher();
  return {
    dispatcher,
    async close() {
      closed = true;
      await Promise.allSettled([inner.destroy(), viaRuntime?.destroy()]);
    },
  };
}

/**
 * `undici` when the `undici` package called the dispatcher, `fallback` when Node's own fetch did:
 * the first frame of either on the stack. Read on a refusal only, off the path of served requests.
 */
export function callerTransport(fallback: string, stack = callerStack()): string {
  const frame = stack
    .split('\n')
    .find(
      (line) => line.includes('node:internal/deps/undici') || /[\\/]node_modules[\\/]undici[\\/]/.test(line),
    );
  return frame && !frame.includes('node:internal/deps/undici') ? 'undici' : fallback;
}

function callerStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack;
}

function targetOf(opts: DispatchOptions, transport: string): Target | undefined {
  let url: URL;
  try {
    url = new URL(opts.path, String(opts.origin));
  } catch {
    return undefined;
  }
  if (opts.upgrade !== 'websocket') return requestTarget(opts.method, url.href, transport);
  // undici opens a WebSocket with an http(s) request; the failure names the ws(s) URL.
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  return requestTarget('GET', url.href, transport.replace(/[^ ]+$/, 'websocket'));
}

/** Puts `dispatcher` in a realm's global slots; returns what puts the previous ones back. */
export function installDispatcher(realm: object, dispatcher: Dispatcher): () => void {
  const slots = realm as Record<symbol, unknown>;
  const previous = DISPATCHER_KEYS.map((key) => ({ key, own: Object.hasOwn(slots, key), value: slots[key] }));
  for (const key of DISPATCHER_KEYS) slots[key] = dispatcher;
  return () => {
    for (const { key, own, value } of previous) {
      const descriptor = Object.getOwnPropertyDescriptor(slots, key);
      if (!own && descriptor?.configurable) delete slots[key];
      else slots[key] = value;
    }
  };
}
