/**
 * The one place that knows msw 2 from msw 3. msw 3 is ESM-only and renamed
 * `onUnhandledRequest` to `onUnhandledFrame`; both resolve a request against the
 * same handler API, so everything else stays version-blind.
 *
 * msw answers node:http/https (and XMLHttpRequest) and the host's fetch, and sees WebSocket
 * connections made with the global `WebSocket`. What the runtime does not serve follows the
 * network policy (./network/policy): loopback passes through, the rest fails the test.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { markError } from '../src/errors';
import { blockedMessage, requestTarget, type Target, type Verdict } from './network/policy';

export interface Interception {
  /** `globalThis.fetch` as msw patched it on the host. */
  fetch: typeof fetch;
  majorVersion: number;
  close(): void;
}

export interface InterceptionHooks {
  /** Serves a request or returns undefined when nothing in the runtime owns it. */
  handle(request: Request): Promise<Response | undefined> | Response | undefined;
  decide(target: Target): Verdict;
  /** Fails the current test; the request then fails like a network error. */
  fail(message: string): void;
}

type MswCore = typeof import('msw');
type MswNode = typeof import('msw/node');

let loaded: { core: MswCore; node: MswNode; major: number } | undefined;

/**
 * Loaded synchronously, on the first request that needs msw (./network/lazy.ts), through Node's
 * `require` of ES modules: the files `import('msw')` would load (the same module instances a test
 * file's own `import 'msw'` gets), found from msw's exports map because the Vitest plugin points
 * `require('msw/node')` at jest-understudy's own (./vitest/msw-require.ts).
 */
function loadMsw() {
  if (!loaded) {
    const load = createRequire(__filename);
    const manifest = load.resolve('msw/package.json');
    const { version, exports } = load(manifest) as { version: string; exports: Record<string, unknown> };
    const entry = (subpath: string) => {
      const file = importTarget(exports[subpath]);
      if (!file) throw new Error(`msw ${version} has no ES module entry for '${subpath}' in its exports`);
      return load(join(dirname(manifest), file));
    };
    loaded = { core: entry('.'), node: entry('./node'), major: Number(version.split('.')[0]) };
  }
  return loaded;
}

/** The file an exports-map entry gives `import()` in Node: the first of its conditions Node matches, in order. */
function importTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (!entry || typeof entry !== 'object') return undefined;
  for (const [condition, target] of Object.entries(entry)) {
    if (!IMPORT_CONDITIONS.has(condition)) continue;
    const file = importTarget(target);
    if (file) return file;
  }
  return undefined;
}

const IMPORT_CONDITIONS = new Set(['node', 'import', 'module-sync', 'default']);

/** Marks requests made through the fetch msw patched, so a failure can say `fetch` rather than `http`. */
const viaFetch = new AsyncLocalStorage<true>();

/**
 * One msw server per worker, listening only while a test file runs. Its catch-all handler
 * answers for the file whose hooks are current: building a handler costs msw a stack trace
 * (it records where the handler was declared), which Jest maps through source maps, and the
 * server's interceptors are the same for every file.
 */
interface SharedServer {
  core: MswCore;
  major: number;
  server: ReturnType<MswNode['setupServer']>;
  listenOptions: unknown;
  current: InterceptionHooks | undefined;
}

let shared: SharedServer | undefined;

type CatchAll = Parameters<MswCore['http']['all']>[1];

/**
 * Builds an msw handler without the stack trace msw takes to record where it was declared, which
 * Jest maps through source maps: once per worker (per file under Vitest), for a frame nothing reads.
 */
function withoutCallFrame<T>(build: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return build();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function sharedServer(): SharedServer {
  shared ??= (() => {
    const { core, node, major } = loadMsw();
    const state = {} as SharedServer;
    /** The refusal message, or undefined when the policy lets the request through. */
    const refusal = (hooks: InterceptionHooks, target: Target | undefined): string | undefined => {
      if (!target) return undefined;
      const verdict = hooks.decide(target);
      if (verdict.action === 'pass') return undefined;
      // A served host that did not answer this request, or a WebSocket to one: nothing mocks it.
      return verdict.action === 'refuse' ? verdict.message : blockedMessage(target);
    };
    const answer: CatchAll = async ({ request }) => {
      const hooks = state.current;
      // Between test files the server is closed; a request that still arrives is not let out.
      if (!hooks) return core.HttpResponse.error();
      const upgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
      const transport = upgrade ? 'websocket' : viaFetch.getStore() ? 'fetch' : 'http';
      // A WebSocket is named by its ws(s) URL, as the client opened it.
      const url = upgrade ? request.url.replace(/^http(s?):/, 'ws$1:') : request.url;
      const target = requestTarget(request.method, url, transport);
      // Only msw 2 hands a node:http upgrade to a handler, and only one made past the functions the
      // network guard takes a served host's upgrade from (./network/sockets.ts): nothing here can
      // answer it, so the test fails saying so, not as a missing mock.
      if (upgrade && target && hooks.decide(target).action === 'serve') {
        hooks.fail(
          `${target.request}: this WebSocket upgrade reached msw ${state.major} past http.request, https.request and http.ClientRequest, ` +
            'where jest-understudy takes the sockets it serves, and msw cannot answer an upgrade. ' +
            "Open the socket through those functions (as the `ws` package does), or with Node's global WebSocket.",
        );
        return core.HttpResponse.error();
      }
      const response = await hooks.handle(request);
      if (response) return response;
      const message = refusal(hooks, target);
      if (message === undefined) return core.passthrough();
      hooks.fail(message);
      return core.HttpResponse.error();
    };
    const catchAll = withoutCallFrame(() => core.http.all('*', answer));
    // Every HTTP request reaches the catch-all; only WebSocket connections get here. Throwing
    // errors the connection before msw opens it for real.
    const webSocket = (url: string | undefined) => {
      const hooks = state.current;
      if (!hooks) throw markError(new Error('jest-understudy: no test file is running'), 'UNHANDLED_REQUEST');
      const target = url === undefined ? undefined : requestTarget('GET', url, 'websocket');
      // A served host's socket goes on to Node's own WebSocket: its dispatcher connects it to the
      // socket server, where the host's socket protocol serves it (or the test fails there).
      if (target && hooks.decide(target).action === 'serve') return;
      const message = refusal(hooks, target);
      if (message === undefined) return;
      hooks.fail(message);
      throw markError(new Error(message), 'UNHANDLED_REQUEST');
    };
    state.listenOptions =
      major >= 3
        ? {
            onUnhandledFrame: ({
              frame,
            }: {
              frame: { data?: { connection?: { client?: { url?: URL | string } } } };
            }) => webSocket(frame.data?.connection?.client?.url?.toString()),
          }
        : { onUnhandledRequest: (request: Request) => webSocket(request.url) };
    Object.assign(state, { core, major, server: node.setupServer(catchAll), current: undefined });
    return state;
  })();
  return shared;
}

/** Whether a test file of this thread has started msw: its interceptors, and the globals they patch. */
export function interceptionStarted(): boolean {
  return shared !== undefined;
}

export function startInterception(hooks: InterceptionHooks): Interception {
  const state = sharedServer();
  if (state.current)
    throw markError(
      new Error('jest-understudy: two test files intercept at once in one worker'),
      'CONTAINMENT_FAILED',
    );
  state.current = hooks;
  const { server } = state;
  server.listen(state.listenOptions as Parameters<typeof server.listen>[0]);
  const patchedFetch = globalThis.fetch;
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    viaFetch.run(true, () => patchedFetch(input, init))) as typeof globalThis.fetch;
  let open = true;
  return {
    fetch,
    majorVersion: state.major,
    close: () => {
      if (!open) return;
      open = false;
      // Nothing but the catch-all is ever added to this server, so there are no handlers to reset
      // (and msw 2's resetHandlers needs Set.prototype.intersection, which Node 20 lacks).
      try {
        server.close();
      } finally {
        state.current = undefined;
      }
    },
  };
}
