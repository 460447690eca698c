/**
 * The one place that knows msw 2 from msw 3. msw 3 is ESM-only and renamed
 * `onUnhandledRequest` to `onUnhandledFrame`; both resolve a request against the
 * same handler API, so everything else stays version-blind.
 */
export interface Interception {
  /** `globalThis.fetch` as msw patched it on the host. */
  fetch: typeof fetch;
  majorVersion: number;
  /**
   * Performs a request for real, past every handler (msw's `bypass`): record and live
   * modes send model calls to the provider through it. Replay never calls it.
   */
  passthrough(request: UpstreamRequest): Promise<Response>;
  close(): void;
}

/** Plain data, so it can come from the test realm. */
export interface UpstreamRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  body: string;
  signal?: AbortSignal;
}

export interface InterceptionHooks {
  /** Serves a request or returns undefined when nothing in the runtime owns it. */
  handle(request: Request): Promise<Response | undefined> | Response | undefined;
  /** Called for a request nothing handled; the request then fails like a network error. */
  unhandled(request: Request): void;
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

export async function startInterception(hooks: InterceptionHooks): Promise<Interception> {
  const { core, node, major } = await loadMsw();
  const catchAll = core.http.all('*', async ({ request }) => {
    const response = await hooks.handle(request);
    if (response) return response;
    hooks.unhandled(request);
    return core.HttpResponse.error();
  });
  const server = node.setupServer(catchAll);
  // Every HTTP request reaches the catch-all; only other frames (WebSocket) get here.
  const options = major >= 3 ? { onUnhandledFrame: 'error' } : { onUnhandledRequest: 'error' };
  server.listen(options as Parameters<typeof server.listen>[0]);
  const patchedFetch = globalThis.fetch;
  const passthrough = (r: UpstreamRequest) => {
    const init: RequestInit = { method: r.method, headers: r.headers, signal: r.signal ?? null };
    if (r.method !== 'GET' && r.method !== 'HEAD') init.body = r.body;
    return patchedFetch(core.bypass(r.url, init));
  };
  return { fetch: patchedFetch, majorVersion: major, passthrough, close: () => server.close() };
}
