/**
 * Replay never leaves the process: this contains every transport of the test file's thread
 * (and of the workers it starts) behind one network policy (./policy). Provider and world hosts
 * are served by the runtime whichever client reaches them; a loopback port a server of this
 * process listens on passes, and so does what `network.allow` names; anything else fails the
 * test with a message naming the host, the port and the transport, and its caller gets a
 * network error without a DNS query or a SYN leaving the process.
 *
 * Set up and torn down once per test file: the guards, then msw (environment/msw.ts) beneath
 * them on the first request that needs it (./lazy.ts); torn down the other way round, so nothing
 * patched outlives the file.
 */
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import type { UpstreamRequest } from '../../src/record/recording';
import type { SocketAcceptance, SocketOffer } from '../../src/sockets/carrier';
import type { UpstreamSocket, UpstreamSocketRequest } from '../../src/sockets/protocol';
import { type Interception, interceptionStarted, startInterception } from '../msw';
import { allowPatterns, allows } from './allow';
import { bundledAgent, createInterception, installDispatcher } from './dispatcher';
import { LazyInterceptor } from './lazy';
import { ListeningPorts, shareWithWorkers } from './listening';
import { blockedMessage, createPolicy, defaultRules, requestTarget, type Target } from './policy';
import { SocketServer } from './socket-server';
import { requestFunctions } from './sockets';
import { containThread, type ThreadContainment } from './thread';
import { createUpstream, type Upstream } from './upstream';
import { listenForWorkerReports, preloadArgs } from './workers';

/**
 * Node's own WebSocket, as the process had it before any test file's msw patched the global: read
 * once Node's undici is loaded, before msw starts. Reading it (even its property descriptor) loads
 * Node's undici, which a file that never sends does not need.
 */
let nodeWebSocket: { value: typeof WebSocket | undefined } | undefined;
const readNodeWebSocket = () => {
  nodeWebSocket ??= { value: globalThis.WebSocket };
};

export interface ContainmentHooks {
  /** Serves a request or returns undefined when nothing in the runtime owns it. */
  handle(request: Request): Promise<Response | undefined> | Response | undefined;
  /** Whether the runtime serves this origin (`https://api.openai.com`): provider and world hosts. */
  serves(origin: string): boolean;
  /** Fails the current test (drained at its end). */
  fail(message: string): void;
  /** Whether the test has msw handlers of its own: undici and fetch requests the policy refuses go to them first. */
  handlersAnswer(): boolean;
  /** The socket protocol serving a WebSocket to a served host, if one does. */
  acceptSocket(offer: SocketOffer): SocketAcceptance | undefined;
}

export interface Containment {
  /** The host's fetch as msw patches it (msw starts on its first call): the sandbox's fetch for what the runtime does not serve. */
  fetch: typeof fetch;
  /** Record and live modes: the real provider, past every interception. */
  upstream(request: UpstreamRequest): Promise<Response>;
  /** The same, for a socket session's WebSocket. */
  upstreamSocket(request: UpstreamSocketRequest): UpstreamSocket | undefined;
  /**
   * For a request nothing in the runtime answered, made by a client outside this process (a
   * browser page the test drives) that no guard here sees: the message the test fails with, or
   * undefined when the policy lets it through (a loopback server of this process, `network.allow`,
   * a URL that is not HTTP(S)).
   */
  refusal(method: string, url: string, transport: string): string | undefined;
  /**
   * Loads Node's undici and installs the dispatcher now, if nothing has: for a file that starts
   * using the runtime, which builds its answers on undici's classes. The loading runs in the async
   * context the file started in, so what undici keeps from it holds no test's run.
   */
  loadUndici(): void;
  close(): Promise<void>;
}

export interface ContainmentOptions {
  /** `network.allow`: `host:port` patterns that pass untouched (validated at start-up). */
  allow: string[];
}

export async function contain(
  hooks: ContainmentHooks,
  sandbox: object,
  options: ContainmentOptions,
): Promise<Containment> {
  // Jest's sandbox gets a dispatcher of its own at once, made from Node's Agent: Node's undici is
  // loaded now. A runner that runs test files in the thread's own realm (Vitest) loads it when the
  // file first needs it (./dispatcher.ts, `installDispatcherOnUse`).
  if (sandbox !== globalThis) bundledAgent();
  const real = {
    connect: net.Socket.prototype.connect,
    tlsConnect: tls.connect,
    lookup: dns.lookup,
    fetch,
    get WebSocket() {
      return nodeWebSocket?.value;
    },
  };
  const realRequests = requestFunctions();
  const ports = ListeningPorts.create();
  const patterns = allowPatterns(options.allow);
  const policy = createPolicy(
    defaultRules({
      serves: hooks.serves,
      listening: (target) => ports.reaches(target),
      allowed: (target) => allows(patterns, target),
    }),
  );
  const context = {
    decide: (target: Target) => policy.decide(target),
    refused: (message: string) => hooks.fail(message),
    label: (transport: string) => transport,
  };
  const socketServer = SocketServer.start(
    {
      handle: hooks.handle,
      acceptSocket: (offer) => hooks.acceptSocket(offer),
      unhandled: (method, url, transport) => {
        const target = requestTarget(method, url, transport);
        if (target) hooks.fail(blockedMessage(target));
      },
    },
    real.connect,
  );
  let interception: Interception | undefined;
  let thread: ThreadContainment | undefined;
  let upstream: Upstream | undefined;
  const msw = new LazyInterceptor(() => {
    try {
      interception = startInterception({ handle: hooks.handle, decide: context.decide, fail: hooks.fail });
    } catch (error) {
      hooks.fail(`jest-understudy: msw could not start, so this request was not let out: ${String(error)}`);
      throw error;
    }
  });
  // msw patches the global fetch when it starts; the runner's fetch (Vitest's session puts its own
  // on this global) stays above it, and msw's is what that fetch hands on what it does not serve.
  msw.layer((start) => {
    // msw builds on Node's undici (its Response, its fetch): the dispatcher goes in first.
    thread?.Agent();
    const top = globalThis.fetch;
    globalThis.fetch = real.fetch;
    try {
      start();
    } finally {
      globalThis.fetch = top;
    }
  });
  const closeAll = async () => {
    msw.close();
    await thread?.close();
    interception?.close();
    await Promise.allSettled([upstream?.close(), socketServer.close()]);
  };
  try {
    thread = containThread({
      ...context,
      realm: globalThis,
      fetchTransport: 'fetch',
      namesCaller: sandbox === globalThis,
      preload: preloadArgs(),
      realConnect: real.connect,
      realRequests,
      socketServer,
      ports,
      handlersAnswer: hooks.handlersAnswer,
      interceptor: msw,
      onUndiciLoad: readNodeWebSocket,
    });
    thread.patches.add(shareWithWorkers({ counts: ports.buffer, allow: options.allow }));
    // Jest's sandbox is its own realm: the undici package there looks for its dispatcher on the
    // sandbox global. It stays there, closed, after teardown (the sandbox goes with its file): an
    // undici call the file left running then fails instead of finding no dispatcher, or creating a
    // real one. A runner that runs test files in the thread's own realm (Vitest) has the thread's.
    if (sandbox !== globalThis) {
      const inSandbox = createInterception({
        ...context,
        Agent: thread.Agent(),
        transport: 'undici',
        attach: (socket, origin, transport) => socketServer.attach(socket, origin, transport),
        handlersAnswer: hooks.handlersAnswer,
      });
      installDispatcher(sandbox, inSandbox.dispatcher);
      thread.patches.add(() => void inSandbox.close());
    }
    thread.patches.add(listenForWorkerReports(hooks.fail));
    upstream = createUpstream(thread.Agent, real);
    // msw answers an XMLHttpRequest it patched before the request was made: where the global exists
    // (a DOM environment), it starts with the file. Where test files share this realm and its
    // modules (Vitest under `isolate: false`), a module an earlier file loaded while msw ran may keep
    // msw's WebSocket class, which connects only while msw listens (closed, with no error, otherwise):
    // once a file of this thread has started msw, the files after it start it with the file.
    if (globalThis.XMLHttpRequest !== undefined || (sandbox === globalThis && interceptionStarted()))
      msw.start();
  } catch (error) {
    await closeAll();
    throw error;
  }
  const realUpstream = upstream;
  return {
    fetch: (input, init) => {
      try {
        msw.start();
      } catch (error) {
        return Promise.reject(error);
      }
      if (!interception)
        return Promise.reject(new TypeError('fetch failed: the test file had already finished'));
      return interception.fetch(input, init);
    },
    upstream: (request) => realUpstream.fetch(request),
    upstreamSocket: (request) => realUpstream.socket(request),
    loadUndici: () => void thread?.Agent(),
    refusal: (method, url, transport) => {
      const target = requestTarget(method, url, transport);
      if (!target) return undefined;
      const verdict = policy.decide(target);
      if (verdict.action === 'pass') return undefined;
      // A served host that did not answer this request: nothing mocks it.
      return verdict.action === 'refuse' ? verdict.message : blockedMessage(target);
    },
    close: closeAll,
  };
}
