/**
 * `understudy.browser.route(pageOrContext)`: a browser context's requests reach this file's model
 * and world, as the agent's in-process calls do. Chromium makes them, not this process, so no
 * network guard sees them: the context is routed (a page's context, which also catches its popups,
 * its workers' requests and, in Chromium, its service workers'), every request turned into a
 * WHATWG Request and answered by the runtime; what nothing answers goes to the network policy,
 * which lets the test's own loopback servers and `network.allow` through and fails the test for
 * everything else. WebSockets are routed through the same policy (./websockets); what Playwright
 * cannot route at all is refused inside the browser (./guard-script, ./guards).
 *
 * A routing belongs to the test it was made in: a request that arrives through it after that test
 * ended fails the file, never the test running then.
 *
 * Playwright is duck-typed (./playwright): `playwright` and `playwright-core` both work, and the
 * package never loads either.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { corsHeaders, isPreflight, preflightResponse } from './cors';
import { REPORT_URL } from './guard-script';
import { type Guards, installGuards, workerScriptOf } from './guards';
import type { PlaywrightRequest, PlaywrightRoute, Routable } from './playwright';
import { type BrowserDeps, type Routing, routingOf, TRANSPORT } from './routing';
import { answerSocket } from './websockets';

/** What `route` returns: the routing stays until the context closes or `unroute()`. */
export interface BrowserRouting {
  unroute(): Promise<void>;
}

const PATTERN = '**/*';
const ANY = () => true;

export type { BrowserDeps } from './routing';

export async function routeBrowser(deps: BrowserDeps, target: unknown): Promise<BrowserRouting> {
  const routable = routableOf(target);
  const routing = routingOf(deps);
  // A call comes from Playwright's connection, in whatever async context the browser was launched
  // in: it belongs to the run `route` was called in, else (the usual case) to the only active run.
  const inContext = AsyncLocalStorage.snapshot();
  const guards = await installGuards(routing, routable);
  const handler = (route: PlaywrightRoute) =>
    inContext(() => answer(routing, guards, route)).catch((error: unknown) => {
      // The page or context closed while its request was being answered: nobody is waiting for it.
      if (/closed/i.test(String((error as Error)?.message ?? error))) return;
      routing.fail(
        'UNHANDLED_REQUEST',
        `${route.request().method()} ${route.request().url()} from the browser: ${String(error)}`,
      );
    });
  await routable.routeWebSocket!(ANY, (socket) =>
    inContext(() => answerSocket(routing, socket)).catch(() => {
      // A socket whose page closed while it was decided on.
    }),
  );
  await routable.route(PATTERN, handler);
  return {
    unroute: async () => {
      routing.removed = true;
      await guards.remove();
      await routable.unroute?.(PATTERN, handler);
    },
  };
}

/**
 * What to route: a BrowserContext as it is; a Page's context, which catches every request of the
 * page (popups, workers, service workers) where the page's own routes miss some.
 */
function routableOf(target: unknown): Routable {
  const t = target as Partial<Routable> | null;
  if (t === null || typeof t !== 'object' || typeof t.route !== 'function')
    throw new TypeError(
      'understudy.browser.route(pageOrContext): expected a Playwright Page or BrowserContext (an object with ' +
        `route(url, handler)), got ${t === null ? 'null' : typeof t}`,
    );
  const context = typeof t.context === 'function' ? t.context() : undefined;
  const routable = context && typeof context.route === 'function' ? context : (t as Routable);
  if (typeof routable.routeWebSocket !== 'function')
    throw new TypeError(
      'understudy.browser.route(pageOrContext): this Playwright has no routeWebSocket (added in Playwright 1.48), ' +
        "so a page's WebSockets would reach the network unseen: use Playwright 1.48 or later (1.57 or later routes " +
        "a service worker's requests too).",
    );
  return routable;
}

async function answer(routing: Routing, guards: Guards, route: PlaywrightRoute): Promise<void> {
  const { requests, file } = routing.deps;
  const request = route.request();
  const url = request.url();
  const method = request.method();
  if (url.startsWith(REPORT_URL)) return guards.reported(route);
  if (!/^https?:/i.test(url)) return passOn(route);
  const headers = await headersOf(request);
  // A worker's script: the page guard marked it, so the worker gets the guard too (./guards).
  const worker = workerScriptOf(url, headers);
  const at = worker?.url ?? url;
  const origin = new URL(at).origin;
  const served = requests.serves(origin);
  const pass = () => (worker ? guards.fulfillWorker(route, at) : passOn(route));
  if (routing.owner.ended) {
    // The test's own servers still take what the page sends; only what the file would answer or refuse is late.
    if (!served && file.refusal(method, at, TRANSPORT) === undefined) return pass();
    routing.late(`${method} ${at}`);
    return route.abort('blockedbyclient');
  }
  // A page on another origin asks first; providers answer browsers with CORS.
  if (served && isPreflight(method, headers)) return route.fulfill(preflightResponse(headers));
  let response: Response | undefined;
  try {
    response = await requests.handleRequest(toRequest(at, method, headers, request.postDataBuffer()));
  } catch (error) {
    routing.fail(
      'UNHANDLED_REQUEST',
      `${method} ${at} from the browser failed in jest-understudy: ${String(error)}`,
    );
    return route.abort('failed');
  }
  if (response === undefined) {
    const refusal = file.refusal(method, at, TRANSPORT);
    if (refusal === undefined) return pass();
    routing.fail('UNHANDLED_REQUEST', refusal);
    return route.abort('blockedbyclient');
  }
  if (response.type === 'error') return route.abort('connectionreset');
  let body: Buffer;
  try {
    // A streamed reply is fulfilled whole: Playwright's fulfill takes a body, not a stream.
    body = Buffer.from(await response.arrayBuffer());
  } catch {
    return route.abort('connectionreset');
  }
  if (worker) body = guards.guardWorker(body);
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') out[name] = value;
  });
  return route.fulfill({
    status: response.status,
    headers: served ? { ...out, ...corsHeaders(headers, Object.keys(out)) } : out,
    body,
  });
}

/** To the next handler the test registered, else the network (the policy let it through). */
function passOn(route: PlaywrightRoute): Promise<void> {
  return route.fallback ? route.fallback() : route.continue();
}

async function headersOf(request: PlaywrightRequest): Promise<Record<string, string>> {
  // allHeaders has what the browser really sends (cookies, the ones headers() leaves out).
  const all = request.allHeaders ? await request.allHeaders() : request.headers();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(all)) if (!name.startsWith(':')) out[name.toLowerCase()] = value;
  return out;
}

function toRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
): Request {
  const init: RequestInit = { method, headers };
  if (body && method !== 'GET' && method !== 'HEAD') init.body = new Uint8Array(body);
  return new Request(url, init);
}
