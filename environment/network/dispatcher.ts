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

import { AsyncResource } from 'node:async_hooks';
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
  return agentClassOf(host[DISPATCHER_KEYS[0]]);
}

/** The Agent class of `agent`: Node's, or a subclass host code installed. */
function agentClassOf(agent: object | undefined): AgentClass {
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

/**
 * Whether Node's own undici is on the stack, read from V8's call sites: a stack's text would go
 * through the runner's `Error.prepareStackTrace`, and Vite's maps every frame through source maps
 * (about 2 ms of a Vitest test file's process, for a check made as undici loads). The runner's is
 * put back as it was defined (defined over, not assigned: an accessor's setter never sees ours).
 */
function nodeUndiciCalling(): boolean {
  const theirs = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  if (theirs?.configurable === false) return callerStack().includes('node:internal/deps/undici/');
  const limit = Error.stackTraceLimit;
  const holder: { stack?: unknown } = {};
  const prepareStackTrace = (_error: Error, sites: NodeJS.CallSite[]) =>
    sites.some((site) => site.getFileName()?.startsWith('node:internal/deps/undici/') === true);
  Object.defineProperty(Error, 'prepareStackTrace', {
    configurable: true,
    writable: true,
    value: prepareStackTrace,
  });
  Error.stackTraceLimit = 50;
  try {
    Error.captureStackTrace(holder, nodeUndiciCalling);
    return holder.stack === true;
  } finally {
    if (theirs) Object.defineProperty(Error, 'prepareStackTrace', theirs);
    else delete (Error as { prepareStackTrace?: unknown }).prepareStackTrace;
    Error.stackTraceLimit = limit;
  }
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

/** Whether Node has loaded its undici (or is loading it) in this thread; true when Node cannot say. */
function nodeUndiciLoaded(): boolean {
  const list = (process as unknown as { moduleLoadList?: readonly string[] }).moduleLoadList;
  return !Array.isArray(list) || list.includes('NativeModule internal/deps/undici/undici');
}

export interface DeferredDispatcher {
  /** Node's Agent: loads Node's undici and installs the dispatcher, if that has not happened yet. */
  Agent(): AgentClass;
  /** Puts back what was in the realm's slots. */
  restore(): void;
}

/**
 * Installs on `realm` (the thread's own global) the dispatcher `create` makes from Node's Agent: at
 * once when Node's undici is loaded, else when something first uses undici, before it sends.
 * Loading Node's undici costs a process about 20 ms of CPU, which a test file that never sends over
 * it (most files of a Vitest project, each its own process) need not pay. Its uses are caught where
 * they start: Node's `fetch`, wrapped until then; the dispatcher's slots, which the `undici` package
 * reads as it loads (the read loads Node's undici, whose own agent gives the Agent class); and Node's
 * undici reading them as it loads, when one of its globals is used first (`takeNodeAgent`). Those
 * globals cannot be watched themselves: Node 22 and later define them as V8's lazy data properties,
 * which even reading their descriptor loads. `onLoad` runs once Node's undici is loaded.
 */
export function installDispatcherOnUse(
  realm: typeof globalThis,
  create: (Agent: AgentClass) => Dispatcher,
  onLoad: () => void = () => {},
): DeferredDispatcher {
  const slots = realm as unknown as Record<symbol, unknown>;
  let Agent: AgentClass | undefined;
  let uninstall: (() => void) | undefined;
  const unwatch: Array<() => void> = [];
  const stopWatching = () => {
    for (const undo of unwatch.splice(0)) undo();
  };
  // Once, after Node's undici has loaded: never while it loads, when its globals are not there yet.
  let loaded = false;
  const afterLoad = () => {
    if (loaded) return;
    loaded = true;
    onLoad();
  };
  // In the async context it is set up in (a test file's start): Node's undici keeps async resources
  // from its loading, and one made inside a test's run would hold that run, and its calls, until
  // the process ends.
  const load = AsyncResource.bind((): AgentClass => {
    stopWatching();
    const Class = bundledAgent();
    Agent = Class;
    afterLoad();
    uninstall = installDispatcher(realm, create(Class));
    return Class;
  });
  const install = (): AgentClass => {
    if (!Agent) return load();
    afterLoad();
    return Agent;
  };
  if (nodeUndiciLoaded() || DISPATCHER_KEYS.some((key) => Object.hasOwn(realm, key))) {
    install();
    return { Agent: install, restore: () => uninstall?.() };
  }
  // Node's fetch takes its dispatcher as it is called, just after loading undici: it installs first.
  const nodeFetch = realm.fetch;
  if (typeof nodeFetch === 'function') {
    const fetch = function fetch(this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      install();
      return nodeFetch.call(this, input, init);
    };
    realm.fetch = fetch;
    unwatch.push(() => {
      // A runner's or msw's fetch put over it since keeps it beneath, as it does Node's.
      if (realm.fetch === fetch) realm.fetch = nodeFetch;
    });
  }
  /**
   * Node's undici loading (a global of its read first, as `new WebSocket` does): it finds its slots
   * empty and defines its own agent there, through `Object.defineProperty`, before it returns to
   * the code that loaded it, which may send at once. The dispatcher goes in the agent's place as
   * it is defined (`Object.defineProperty` is Node's again once the loading task is done); Node's
   * agent gives the Agent class, and is put back when the file ends.
   */
  let dispatcher: Dispatcher | undefined;
  const takeNodeAgent = () => {
    const define = Object.defineProperty;
    let nodeAgent: Dispatcher | undefined;
    const intercept = <T>(
      target: T,
      key: PropertyKey,
      descriptor: PropertyDescriptor & ThisType<unknown>,
    ): T => {
      const agent = descriptor?.value as Dispatcher | undefined;
      if (
        target !== realm ||
        !DISPATCHER_KEYS.includes(key as symbol) ||
        typeof agent?.dispatch !== 'function'
      )
        return define(target, key, descriptor);
      if (!dispatcher) {
        try {
          const Class = agentClassOf(agent);
          dispatcher = create(Class);
          Agent = Class;
          nodeAgent = agent;
        } catch {
          // Node's undici loads as it would: the microtask installs the dispatcher, or says why not.
          return define(target, key, descriptor);
        }
      }
      return define(target, key, { ...descriptor, value: dispatcher });
    };
    Object.defineProperty = intercept as typeof Object.defineProperty;
    queueMicrotask(() => {
      if (Object.defineProperty === intercept) Object.defineProperty = define;
      if (!dispatcher) return void install();
      afterLoad();
      stopWatching();
      // As if Node's agent had been there when the dispatcher was installed: it is what comes back.
      for (const key of DISPATCHER_KEYS) if (slots[key] === dispatcher) slots[key] = nodeAgent;
      uninstall = installDispatcher(realm, dispatcher);
    });
  };
  let taking = false;
  for (const key of DISPATCHER_KEYS) {
    const get = () => {
      // A slot Node's undici does not define itself (Node 20 defines one of the two) until the microtask.
      if (dispatcher) return dispatcher;
      // Node's undici, as it loads (not yet in Node's list of loaded modules).
      if (nodeUndiciLoaded() || nodeUndiciCalling()) {
        if (!taking && !Agent) {
          taking = true;
          takeNodeAgent();
        }
        return undefined;
      }
      install();
      return slots[key];
    };
    Object.defineProperty(realm, key, {
      configurable: true,
      enumerable: false,
      get,
      set: (value: unknown) => {
        install();
        slots[key] = value;
      },
    });
    unwatch.push(() => {
      // Node's undici defines its own slot as it loads: that stays.
      if (Object.getOwnPropertyDescriptor(realm, key)?.get === get) delete slots[key];
    });
  }
  return {
    Agent: install,
    restore() {
      stopWatching();
      uninstall?.();
    },
  };
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
