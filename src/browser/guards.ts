/**
 * What a routed context's pages and workers may not do, since Playwright cannot route it: the
 * in-browser guard (./guard-script) as an init script of the context and in front of every worker
 * script, its reports turned into test failures, and the service workers whose requests this
 * Playwright cannot route (before 1.57, or with PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK set).
 */
import { type GuardOptions, guardedWorkerScript, guardScript, WORKER_MARK } from './guard-script';
import type { PlaywrightRoute, PlaywrightWorker, Routable } from './playwright';
import type { Routing } from './routing';

export interface Guards {
  /** A report of the in-browser guard: fails the test with what it refused. */
  reported(route: PlaywrightRoute): Promise<void>;
  /** A worker script that passes the policy: fetched, and fulfilled with the guard in front. */
  fulfillWorker(route: PlaywrightRoute, url: string): Promise<void>;
  /** A worker script the file answered (an msw handler of the test): the guard in front of its body. */
  guardWorker(body: Buffer): Buffer;
  /** unroute(): the guard leaves new pages, where Playwright can take it off, and reports fail nothing. */
  remove(): Promise<void>;
}

/** The extra parts of a Route used to put the guard in front of a worker's script (Playwright 1.29+). */
interface FetchingRoute extends PlaywrightRoute {
  fetch?(options: { url: string }): Promise<{ text(): Promise<string> }>;
  fulfill(
    options: { response?: unknown; body: string } | Parameters<PlaywrightRoute['fulfill']>[0],
  ): Promise<void>;
}

export async function installGuards(routing: Routing, routable: Routable): Promise<Guards> {
  const options: GuardOptions = { blockServiceWorkers: blockServiceWorkers(routable) };
  const source = guardScript(options);
  const script = await routable.addInitScript?.({ content: source });
  // Pages already open get it now; their workers already running are beyond reach.
  for (const page of routable.pages?.() ?? [])
    for (const frame of page.frames?.() ?? []) await frame.evaluate?.(source).catch(() => undefined);
  const onServiceWorker = (worker: PlaywrightWorker) => {
    if (routing.removed || serviceWorkerRouted(worker)) return;
    routing.fail(
      'UNHANDLED_REQUEST',
      `jest-understudy: a service worker (${worker.url()}) started in a routed browser context, and this Playwright ` +
        "cannot route a service worker's requests (Playwright 1.57 and later does, in Chromium, unless " +
        'PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK is set): they would reach the network unseen. Create the context ' +
        "with serviceWorkers: 'block', or use Playwright 1.57 or later.",
    );
  };
  if (options.blockServiceWorkers !== true) {
    routable.on?.('serviceworker', onServiceWorker as (value: never) => void);
    for (const worker of routable.serviceWorkers?.() ?? []) onServiceWorker(worker);
  }
  return {
    async reported(route) {
      const what = route.request().postDataBuffer()?.toString('utf8') ?? 'something';
      if (!routing.removed)
        routing.fail(
          'UNHANDLED_REQUEST',
          `jest-understudy: a page of a routed browser context tried ${what}, which Playwright cannot route, so it ` +
            'would reach the network unseen: jest-understudy refused it (the page got a SecurityError). Keep it out ' +
            'of the page under test: a WebSocket in a worker reaches only loopback (open it from the page, where it ' +
            'is routed), and shared workers, WebTransport and WebRTC servers off loopback are refused.',
        );
      await route.fulfill({ status: 204, headers: { 'access-control-allow-origin': '*' }, body: '' });
    },
    async fulfillWorker(route, url) {
      const r = route as FetchingRoute;
      if (typeof r.fetch !== 'function') return r.fallback ? r.fallback() : r.continue();
      const response = await r.fetch({ url });
      await r.fulfill({ response, body: guardedWorkerScript(await response.text(), options) });
    },
    guardWorker(body) {
      return Buffer.concat([Buffer.from(source), body]);
    },
    async remove() {
      routable.off?.('serviceworker', onServiceWorker as (value: never) => void);
      // Playwright 1.54 and later return a Disposable from addInitScript.
      const disposable = script as { dispose?: () => Promise<void> } | undefined;
      if (typeof disposable?.dispose === 'function') await disposable.dispose().catch(() => undefined);
    },
  };
}

/**
 * A worker's script request: one the page guard marked (its URL without the mark), or a service
 * worker's (Chromium sends `service-worker: script`); undefined for anything else.
 */
export function workerScriptOf(url: string, headers: Record<string, string>): { url: string } | undefined {
  if (url.includes(WORKER_MARK)) {
    const u = new URL(url);
    if (u.searchParams.has(WORKER_MARK)) {
      u.searchParams.delete(WORKER_MARK);
      return { url: u.href };
    }
  }
  return headers['service-worker'] === 'script' ? { url } : undefined;
}

/**
 * Whether registering a service worker is refused: Chromium routes their requests through the
 * context (Playwright 1.57 and later; each one is checked as it starts), Firefox and WebKit do not.
 * A persistent context names no browser: the page tells by its user agent.
 */
function blockServiceWorkers(routable: Routable): GuardOptions['blockServiceWorkers'] {
  const name = routable.browser?.()?.browserType?.()?.name?.();
  if (name === undefined) return 'unless-chromium';
  return name !== 'chromium';
}

/** Playwright 1.57 gave workers `waitForEvent` in the release that routes service workers in Chromium. */
function serviceWorkerRouted(worker: PlaywrightWorker): boolean {
  return typeof worker.waitForEvent === 'function' && !process.env.PLAYWRIGHT_DISABLE_SERVICE_WORKER_NETWORK;
}
