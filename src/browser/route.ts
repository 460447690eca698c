/**
 * `understudy.browser.route(pageOrContext)`: a Playwright page's (or browser context's) requests
 * reach this file's model and world, as the agent's in-process calls do. Chromium makes them, not
 * this process, so no network guard sees them: each one is intercepted with Playwright's own
 * `route('**\/*')`, turned into a WHATWG Request and answered by the runtime; what nothing
 * answers goes to the network policy, which lets the test's own loopback servers and
 * `network.allow` through and fails the test for everything else.
 *
 * Playwright is duck-typed (./playwright): `playwright` and `playwright-core` both work, and the
 * package never loads either.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ErrorCode } from '../errors';
import { corsHeaders, isPreflight, preflightResponse } from './cors';
import type { PlaywrightRequest, PlaywrightRoute, Routable } from './playwright';

/** How the refusal message names the transport: Chromium, driven by Playwright. */
const TRANSPORT = 'browser';

export interface BrowserHost {
  /** A provider, world or own-handler answer; undefined when nothing of the file answers it. */
  handleRequest(request: Request): Promise<Response | undefined> | undefined;
  /** Whether the runtime serves this origin (provider and world hosts). */
  serves(origin: string): boolean;
  /** The policy's refusal message for a request nothing answered, or undefined when it passes. */
  refusal(method: string, url: string, transport: string): string | undefined;
  fail(code: ErrorCode, message: string): void;
}

/** What `route` returns: the routing stays until the page closes or `unroute()`. */
export interface BrowserRouting {
  unroute(): Promise<void>;
}

const PATTERN = '**/*';

export async function routeBrowser(host: BrowserHost, target: unknown): Promise<BrowserRouting> {
  const routable = asRoutable(target);
  // A call comes from Playwright's connection, in whatever async context the browser was launched
  // in: it belongs to the run `route` was called in, else (the usual case) to the only active run.
  const inContext = AsyncLocalStorage.snapshot();
  const handler = (route: PlaywrightRoute) =>
    inContext(() => answer(host, route)).catch((error: unknown) => {
      // The page or context closed while its request was being answered: nobody is waiting for it.
      if (/closed/i.test(String((error as Error)?.message ?? error))) return;
      host.fail(
        'UNHANDLED_REQUEST',
        `${route.request().method()} ${route.request().url()} from the browser: ${String(error)}`,
      );
    });
  await routable.route(PATTERN, handler);
  return { unroute: () => routable.unroute?.(PATTERN, handler) ?? Promise.resolve() };
}

function asRoutable(target: unknown): Routable {
  const t = target as Partial<Routable> | null;
  if (t === null || typeof t !== 'object' || typeof t.route !== 'function')
    throw new TypeError(
      'understudy.browser.route(pageOrContext): expected a Playwright Page or BrowserContext (an object with ' +
        `route(url, handler)), got ${t === null ? 'null' : typeof t}`,
    );
  return t as Routable;
}

async function answer(host: BrowserHost, route: PlaywrightRoute): Promise<void> {
  const request = route.request();
  const url = request.url();
  const method = request.method();
  if (!/^https?:/i.test(url)) return passOn(route);
  const headers = await headersOf(request);
  const origin = new URL(url).origin;
  const served = host.serves(origin);
  // A page on another origin asks first; providers answer browsers with CORS.
  if (served && isPreflight(method, headers)) return route.fulfill(preflightResponse(headers));
  let response: Response | undefined;
  try {
    response = await host.handleRequest(toRequest(url, method, headers, request.postDataBuffer()));
  } catch (error) {
    host.fail(
      'UNHANDLED_REQUEST',
      `${method} ${url} from the browser failed in jest-understudy: ${String(error)}`,
    );
    return route.abort('failed');
  }
  if (response === undefined) {
    const refusal = host.refusal(method, url, TRANSPORT);
    if (refusal === undefined) return passOn(route);
    host.fail('UNHANDLED_REQUEST', refusal);
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
