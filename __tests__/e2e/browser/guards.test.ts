/**
 * What Playwright cannot route, refused inside the browser (src/browser/guard-script.ts and
 * guards.ts): the guard run in a real Chromium page on its own (without understudy's routing, so
 * its reports are seen here), the worker scripts it marks, and the service-worker check.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { guardScript, REPORT_URL, WORKER_MARK } from '../../../src/browser/guard-script';
import { installGuards, workerScriptOf } from '../../../src/browser/guards';
import type { Routable } from '../../../src/browser/playwright';
import type { Routing } from '../../../src/browser/routing';
import { launchChromium } from '../../support/chromium';

let browser: Browser;
let server: Server;
let origin: string;

beforeAll(async () => {
  browser = await launchChromium();
  server = createServer((req, res) => {
    if (req.url?.startsWith('/worker.js'))
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end('postMessage(self.location.href)');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A page with the guard (and nothing else of jest-understudy), and what it reported. */
async function guarded(
  blockServiceWorkers: boolean | 'unless-chromium',
): Promise<{ context: BrowserContext; page: Page; reports: string[]; scripts: string[] }> {
  const context = await browser.newContext();
  const reports: string[] = [];
  const scripts: string[] = [];
  await context.addInitScript({ content: guardScript({ blockServiceWorkers }) });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(REPORT_URL)) {
      reports.push(route.request().postData() ?? '');
      return route.fulfill({ status: 204, body: '' });
    }
    if (url.includes('worker.js')) scripts.push(url);
    return route.fallback();
  });
  const page = await context.newPage();
  await page.goto(origin);
  return { context, page, reports, scripts };
}

/** What `code` threw in the page (its error's name), else what it returned. */
const attempt = (page: Page, code: string) =>
  page.evaluate((c) => {
    try {
      return String(new Function(c)());
    } catch (error) {
      return (error as Error).name;
    }
  }, code);

describe('the in-browser guard', () => {
  it('refuses shared workers, WebTransport and WebRTC servers off loopback, and reports each', async () => {
    const { context, page, reports } = await guarded(false);
    try {
      expect(await attempt(page, "new SharedWorker('/shared.js')")).toBe('SecurityError');
      expect(await attempt(page, "new WebTransport('https://wt.invalid/x')")).toBe('SecurityError');
      expect(
        await attempt(page, "new RTCPeerConnection({ iceServers: [{ urls: 'stun:stun.invalid:3478' }] })"),
      ).toBe('SecurityError');
      expect(
        await attempt(
          page,
          "new RTCPeerConnection().setConfiguration({ iceServers: [{ urls: ['turn:turn.invalid'] }] })",
        ),
      ).toBe('SecurityError');
      expect(reports).toEqual([
        `a SharedWorker (${origin}/shared.js) (in ${origin}/)`,
        `a WebTransport session to https://wt.invalid/x (in ${origin}/)`,
        `a WebRTC connection through stun:stun.invalid:3478 (in ${origin}/)`,
        `a WebRTC connection through turn:turn.invalid (in ${origin}/)`,
      ]);
    } finally {
      await context.close();
    }
  });

  it('lets through what stays on the machine, and keeps the constructors usable', async () => {
    const { context, page, reports } = await guarded(false);
    try {
      expect(await attempt(page, 'return new RTCPeerConnection() instanceof RTCPeerConnection')).toBe('true');
      expect(
        await attempt(
          page,
          "new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:3478' }] }); return 'ok'",
        ),
      ).toBe('ok');
      expect(await attempt(page, 'return WebSocket.OPEN')).toBe('1');
      expect(await attempt(page, 'return WebTransport.name')).toBe('WebTransport');
      expect(reports).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("marks a worker's script request, which keeps its own URL once the route took the mark off", async () => {
    const { context, page, scripts } = await guarded(false);
    try {
      const location = await page.evaluate(
        () =>
          new Promise((resolve) => {
            const worker = new Worker('/worker.js?v=2');
            worker.onmessage = (e) => resolve(e.data);
          }),
      );
      expect(scripts).toEqual([`${origin}/worker.js?v=2&${WORKER_MARK}=1`]);
      expect(location).toBe(`${origin}/worker.js?v=2&${WORKER_MARK}=1`);
      expect(workerScriptOf(scripts[0], {})).toEqual({ url: `${origin}/worker.js?v=2` });
    } finally {
      await context.close();
    }
  });

  it('leaves service workers to Chromium when the context names no browser (a persistent context)', async () => {
    const { context, page, reports } = await guarded('unless-chromium');
    try {
      expect(
        await page.evaluate(() =>
          navigator.serviceWorker.register('/missing-sw.js').then(
            () => 'registered',
            (error: Error) => error.message,
          ),
        ),
      ).not.toContain('jest-understudy'); // Chromium fetched it (an HTML page, so it failed): not refused by the guard
      expect(reports).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses registering a service worker where the browser cannot route them', async () => {
    const { context, page, reports } = await guarded(true);
    try {
      expect(
        await page.evaluate(() =>
          navigator.serviceWorker.register('/sw.js').then(
            () => 'registered',
            (error: Error) => error.name,
          ),
        ),
      ).toBe('SecurityError');
      expect(reports).toEqual([`a service worker (${origin}/sw.js) (in ${origin}/)`]);
    } finally {
      await context.close();
    }
  });
});

describe('a context routed after its pages opened', () => {
  it('puts the guard in the pages already open', async () => {
    const context = await browser.newContext();
    try {
      const reports: string[] = [];
      await context.route(`${REPORT_URL}*`, (route) => {
        reports.push(route.request().postData() ?? '');
        return route.fulfill({ status: 204, body: '' });
      });
      const page = await context.newPage();
      await page.goto(origin);
      const routing: Routing = {
        deps: {} as Routing['deps'],
        owner: { test: 'a test', ended: false },
        fail: () => undefined,
        late: () => undefined,
        removed: false,
      };
      // Playwright's overloaded `on` is wider than the duck type names.
      await installGuards(routing, context as unknown as Routable);
      expect(await attempt(page, "new SharedWorker('/shared.js')")).toBe('SecurityError');
      expect(reports).toEqual([`a SharedWorker (${origin}/shared.js) (in ${origin}/)`]);
    } finally {
      await context.close();
    }
  });
});

describe('worker scripts', () => {
  it("are a marked URL (without the mark) or a service worker's script request", () => {
    expect(workerScriptOf(`https://app.test/w.js?${WORKER_MARK}=1`, {})).toEqual({
      url: 'https://app.test/w.js',
    });
    expect(workerScriptOf('https://app.test/sw.js', { 'service-worker': 'script' })).toEqual({
      url: 'https://app.test/sw.js',
    });
    expect(workerScriptOf('https://app.test/app.js', {})).toBeUndefined();
    expect(workerScriptOf(`https://app.test/app.js?q=${WORKER_MARK}`, {})).toBeUndefined();
  });
});

describe('service workers of a routed context', () => {
  const routing = (): Routing & { failures: string[] } => {
    const failures: string[] = [];
    return {
      deps: {} as Routing['deps'],
      owner: { test: 'a test', ended: false },
      fail: (_code, message) => failures.push(message),
      late: () => undefined,
      removed: false,
      failures,
    };
  };
  const contextOf = (browserName: string | undefined) => {
    const listeners: Array<(worker: unknown) => void> = [];
    return {
      route: jest.fn(async () => {}),
      addInitScript: jest.fn(async (_script: { content: string }) => {}),
      on: jest.fn((_event: string, listener: (worker: unknown) => void) => listeners.push(listener)),
      off: jest.fn(),
      serviceWorkers: () => [],
      browser: () =>
        browserName === undefined ? null : { browserType: () => ({ name: () => browserName }) },
      listeners,
    };
  };

  it('in Chromium are routed through the context; a Playwright that cannot fails the test', async () => {
    const r = routing();
    const context = contextOf('chromium');
    await installGuards(r, context);
    expect(context.addInitScript.mock.calls[0][0].content).toContain('"blockServiceWorkers":false');
    context.listeners[0]({ url: () => 'http://127.0.0.1/sw.js', waitForEvent: () => undefined });
    expect(r.failures).toEqual([]);
    context.listeners[0]({ url: () => 'http://127.0.0.1/old-sw.js' });
    expect(r.failures).toEqual([
      expect.stringContaining(
        "a service worker (http://127.0.0.1/old-sw.js) started in a routed browser context, and this Playwright cannot route a service worker's requests",
      ),
    ]);
  });

  it('in Firefox and WebKit are refused when registered', async () => {
    for (const name of ['firefox', 'webkit']) {
      const context = contextOf(name);
      await installGuards(routing(), context);
      expect(context.addInitScript.mock.calls[0][0].content).toContain('"blockServiceWorkers":true');
      expect(context.on).not.toHaveBeenCalled();
    }
  });
});
