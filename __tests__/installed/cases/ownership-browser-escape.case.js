/**
 * Nothing escapes the browser route: a page routed as the docs show (understudy.browser.route(page)
 * in beforeEach) opens WebSockets, registers a service worker that proxies its requests
 * (respondWith(fetch(event.request)), as PWAs do), starts workers and opens a popup. Provider
 * requests are answered by the model, the test's own servers pass, anything else fails the test
 * naming it. The driver runs this in a network namespace with only loopback, where traps count
 * every connection that leaves.
 */
const http = require('node:http');
const { afterAll, afterEach, beforeAll, beforeEach, expect, it } = require('./runner-globals.cjs');
const { chromium } = require('playwright-core');
const { WebSocketServer } = require('ws');
const { script, understudy } = require('jest-understudy');

const ASK = `async function ask(content) {
  const r = await fetch('https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-page-secret' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
  });
  return r.ok ? (await r.json()).choices[0].message.content : 'model ' + r.status;
}`;

const FILES = {
  '/': ['text/html', `<!doctype html><p>app</p><script>${ASK}</script>`],
  // A PWA's service worker: it answers every cross-origin request itself, with fetch(event.request).
  '/sw.js': [
    'text/javascript',
    `self.addEventListener('install', () => self.skipWaiting());
     self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
     self.addEventListener('fetch', (e) => {
       if (new URL(e.request.url).origin !== self.location.origin) e.respondWith(fetch(e.request));
     });`,
  ],
  '/worker.js': [
    'text/javascript',
    `${ASK}
     onmessage = async (e) => {
       if (e.data.ask) return postMessage(await ask(e.data.ask).catch((error) => 'failed ' + error));
       try {
         const ws = new WebSocket(e.data.socket);
         ws.onopen = () => postMessage('open');
         ws.onclose = (c) => postMessage('close ' + c.code);
       } catch (error) {
         postMessage(error.name);
       }
     };`,
  ],
  '/shared.js': ['text/javascript', 'onconnect = (e) => e.ports[0].postMessage("connected");'],
};

let browser;
let server;
let sockets;
let origin;
let context;
let page;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.UNDERSTUDY_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
  server = http.createServer((req, res) => {
    const [type, body] = FILES[new URL(req.url, 'http://x').pathname] ?? ['text/plain', 'not found'];
    res.writeHead(body === 'not found' ? 404 : 200, { 'content-type': type }).end(body);
  });
  sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => socket.on('message', (m) => socket.send(`echo ${m}`)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
}, 30_000);

afterAll(async () => {
  await browser.close();
  sockets.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  await understudy.browser.route(page);
  await page.goto(origin);
});

afterEach(() => context.close());

/** Opens a WebSocket from the page: the events it saw, or the error it threw. */
const pageSocket = (url) =>
  page.evaluate(
    (u) =>
      new Promise((resolve) => {
        const events = [];
        const ws = new WebSocket(u);
        ws.onopen = () => {
          events.push('open');
          ws.send('hi');
        };
        ws.onmessage = (e) => {
          events.push(e.data);
          ws.close();
        };
        ws.onclose = (e) => resolve([...events, `close ${e.code}`]);
      }),
    url,
  );

/** Runs `message` in a dedicated worker (`new Worker(url)`): what it posted back. */
const inWorker = (url, message) =>
  page.evaluate(
    ([u, m]) =>
      new Promise((resolve) => {
        const worker = new Worker(u);
        worker.onmessage = (e) => resolve(e.data);
        worker.postMessage(m);
      }),
    [url, message],
  );

const hi = script().user('hello').replies('hi there');

it('a page that opens a WebSocket to a host nothing serves: ws.invalid', async () => {
  expect(await pageSocket('wss://ws.invalid/live')).toEqual(['close 1008']);
});

it('a page that opens a WebSocket to a WebSocket server of the test', async () => {
  expect(await pageSocket(origin.replace('http', 'ws'))).toEqual(['open', 'echo hi', 'close 1005']);
});

it("a PWA whose service worker proxies the page's model request", async () => {
  understudy.model.use(hi);
  await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve));
  });
  const run = await understudy.run(() => page.evaluate(() => ask('hello')));
  expect(run.output).toBe('hi there');
  expect(run.modelCalls).toHaveLength(1);
  expect(run).toHaveFinalMessage('hi there');
});

it('a service worker that proxies a request to a host nothing serves: sw.invalid', async () => {
  const status = await page.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve));
    return fetch('https://sw.invalid/collect', { method: 'POST', body: 'x' }).then(
      (r) => r.status,
      () => 'failed',
    );
  });
  expect(status).toBe('failed');
});

it("a dedicated worker's model request is served", async () => {
  understudy.model.use(hi);
  const run = await understudy.run(() => inWorker('/worker.js', { ask: 'hello' }));
  expect(run.output).toBe('hi there');
  expect(run).toHaveFinalMessage('hi there');
});

it("a dedicated worker's WebSocket to a host nothing serves: ws-worker.invalid", async () => {
  expect(await inWorker('/worker.js', { socket: 'wss://ws-worker.invalid/live' })).toBe('SecurityError');
});

it('a worker made from a blob: its WebSocket to blob-worker.invalid', async () => {
  const answer = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const code = `try { new WebSocket('wss://blob-worker.invalid/live'); postMessage('opened'); } catch (e) { postMessage(e.name); }`;
        const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        worker.onmessage = (e) => resolve(e.data);
      }),
  );
  expect(answer).toBe('SecurityError');
});

it('a page that starts a shared worker (Playwright routes none of its requests)', async () => {
  expect(
    await page.evaluate(() => {
      try {
        new SharedWorker('/shared.js');
        return 'started';
      } catch (error) {
        return error.name;
      }
    }),
  ).toBe('SecurityError');
});

it('a page that opens a WebTransport session to wt.invalid', async () => {
  expect(
    await page.evaluate(() => {
      try {
        new WebTransport('https://wt.invalid:4433/session');
        return 'opened';
      } catch (error) {
        return error.name;
      }
    }),
  ).toBe('SecurityError');
});

it('a popup the page opens calls a host nothing serves: popup.invalid', async () => {
  const [popup] = await Promise.all([
    context.waitForEvent('page'),
    page.evaluate((o) => window.open(`${o}/`), origin),
  ]);
  await popup.waitForLoadState();
  expect(
    await popup.evaluate(() =>
      fetch('https://popup.invalid/collect').then(
        (r) => r.status,
        () => 'failed',
      ),
    ),
  ).toBe('failed');
});
