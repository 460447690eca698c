/**
 * Installs every guard of one thread (the test file's, or a worker's): sockets, TLS, http2,
 * UDP, DNS, undici's global dispatcher and `Worker`, and the count of the thread's listening
 * servers. Returns what undoes them all.
 */
import net from 'node:net';
import { guardDgram } from './dgram';
import {
  type AgentClass,
  createInterception,
  type DeferredDispatcher,
  installDispatcherOnUse,
} from './dispatcher';
import { guardDns } from './dns';
import { type GuardContext, Patches } from './guard';
import { guardHttp2 } from './http2';
import type { LazyInterceptor } from './lazy';
import { type ListeningPorts, watchListening } from './listening';
import type { SocketServer } from './socket-server';
import { guardSockets, type RequestFunctions } from './sockets';
import { patchWorker } from './workers';

export interface ThreadOptions extends GuardContext {
  /** The thread's global object, where Node's own fetch and WebSocket find their dispatcher. */
  realm: object;
  /** How requests through the realm's dispatcher are named (`fetch`, `worker fetch`). */
  fetchTransport: string;
  /** What `new Worker()` appends to the worker's execArgv. */
  preload: string[];
  /** Node's own connect, when another interceptor (msw 3) already wraps the prototype's. */
  realConnect?: typeof net.Socket.prototype.connect;
  /** Node's own request functions, when another interceptor (msw 2) already wraps them. */
  realRequests?: RequestFunctions;
  /** Serves provider and world hosts (the test's thread only). */
  socketServer?: SocketServer;
  /** Where this thread counts the ports its servers listen on (shared by the test's threads). */
  ports: ListeningPorts;
  /** Whether the test has msw handlers of its own (the test's thread only). */
  handlersAnswer?: () => boolean;
  /** msw, started beneath the guards on the first request that needs it (the test's thread only). */
  interceptor?: LazyInterceptor;
  /** Whether the `undici` package shares the realm's dispatcher with Node's fetch (see ./dispatcher.ts). */
  namesCaller?: boolean;
  /** Called once Node's undici is loaded, before the dispatcher is installed (see `installDispatcherOnUse`). */
  onUndiciLoad?: () => void;
}

export interface ThreadContainment {
  /** Node's Agent; loads Node's undici and installs the thread's dispatcher if nothing did yet. */
  Agent(): AgentClass;
  patches: Patches;
  /** Undoes the patches, then closes the agents they used. */
  close(): Promise<void>;
}

export function containThread(options: ThreadOptions): ThreadContainment {
  const { socketServer } = options;
  const context: GuardContext = { decide: options.decide, refused: options.refused, label: options.label };
  const attach =
    socketServer &&
    ((socket: net.Socket, origin: string, transport: string) =>
      socketServer.attach(socket, origin, transport));
  const patches = new Patches();
  const closers: Array<() => Promise<void>> = [];
  let dispatcher: DeferredDispatcher;
  try {
    patches.add(watchListening(options.ports));
    patches.add(
      guardSockets({
        ...context,
        realConnect: options.realConnect ?? net.Socket.prototype.connect,
        realRequests: options.realRequests,
        attach,
        interceptor: options.interceptor,
      }),
    );
    patches.add(
      guardHttp2({ ...context, serve: socketServer && ((...args) => socketServer.connectHttp2(...args)) }),
    );
    patches.add(guardDgram(context));
    patches.add(guardDns(context));
    dispatcher = installDispatcherOnUse(
      options.realm as typeof globalThis,
      (Agent) => {
        const interception = createInterception({
          ...context,
          Agent,
          transport: options.fetchTransport,
          attach,
          handlersAnswer: options.handlersAnswer,
          namesCaller: options.namesCaller,
        });
        closers.push(interception.close);
        return interception.dispatcher;
      },
      options.onUndiciLoad,
    );
    patches.add(() => dispatcher.restore());
    patches.add(patchWorker(options.preload));
  } catch (error) {
    patches.restore();
    throw error;
  }
  return {
    Agent: dispatcher.Agent,
    patches,
    async close() {
      patches.restore();
      await Promise.allSettled(closers.splice(0).map((close) => close()));
    },
  };
}
