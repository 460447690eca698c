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

let loaded: Promise<{ core: MswCore; node: MswNode; major: number }> | undefined;

function loadMsw() {
  loaded ??= (async () => {
    const [core, node] = await Promise.all([import('msw'), import('msw/node')]);
    const { createRequire } = await import('node:module');
    const version: string = createRequire(__filename)('msw/package.json').version;
    return { core, node, major: Number(version.split('.')[0]) };
  })();
  return loaded;
}

/** Marks requests made through the fetch msw patched, so a failure can say `fetch` rather than `http`. */
const viaFetch = new AsyncLocalStorage<true>();

export async function startInterception(hooks: InterceptionHooks): Promise<Interception> {
  const { core, node, major } = await loadMsw();
  /** The refusal message, or undefined when the policy lets the request through. */
  const refusal = (target: Target | undefined): string | undefined => {
    if (!target) return undefined;
    const verdict = hooks.decide(target);
    if (verdict.action === 'pass') return undefined;
    // A served host that did not answer this request, or a WebSocket to one: nothing mocks it.
    return verdict.action === 'refuse' ? verdict.message : blockedMessage(target);
  };
  const catchAll = core.http.all('*', async ({ request }) => {
    const response = await hooks.handle(request);
    if (response) return response;
    const transport =
      request.headers.get('upgrade')?.toLowerCase() === 'websocket'
        ? 'websocket'
        : viaFetch.getStore()
          ? 'fetch'
          : 'http';
    const message = refusal(requestTarget(request.method, request.url, transport));
    if (message === undefined) return core.passthrough();
    hooks.fail(message);
    return core.HttpResponse.error();
  });
  const server = node.setupServer(catchAll);
  // Every HTTP request reaches the catch-all; only WebSocket connections get here. Throwing
  // errors the connection before msw opens it for real.
  const webSocket = (url: string | undefined) => {
    const message = refusal(url === undefined ? undefined : requestTarget('GET', url, 'websocket'));
    if (message === undefined) return;
    hooks.fail(message);
    throw markError(new Error(message), 'UNHANDLED_REQUEST');
  };
  const options =
    major >= 3
      ? {
          onUnhandledFrame: ({
            frame,
          }: {
            frame: { data?: { connection?: { client?: { url?: URL | string } } } };
          }) => webSocket(frame.data?.connection?.client?.url?.toString()),
        }
      : { onUnhandledRequest: (request: Request) => webSocket(request.url) };
  server.listen(options as Parameters<typeof server.listen>[0]);
  const patchedFetch = globalThis.fetch;
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    viaFetch.run(true, () => patchedFetch(input, init))) as typeof globalThis.fetch;
  return { fetch, majorVersion: major, close: () => server.close() };
}
