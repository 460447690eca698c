/**
 * understudy.browser.route in headless Chromium: what a page's own script sends to provider hosts
 * is served by this file's model (plain and streamed, cross-origin readable), belongs to the run
 * the page was routed in, and reaches nothing else.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../support/chromium';

let browser: Browser;
let server: Server;
let origin: string;

beforeAll(async () => {
  browser = await launchChromium();
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>app</p>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** A page on the test's own server (a cross-origin caller of the provider), in a fresh context. */
async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  return { context, page };
}

/** What a page's fetch of Chat Completions got back. */
function askFromPage(page: Page, content: string, stream = false) {
  return page.evaluate(
    async ({ content, stream }) => {
      const response = await fetch('https://api.openai.com/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-page' },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content }] }),
      });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: await response.text(),
      };
    },
    { content, stream },
  );
}

describe('understudy.browser.route', () => {
  it('serves a browser context: a plain and a streamed reply, and headers a cross-origin page can read', async () => {
    const { context, page } = await openPage();
    try {
      await understudy.browser.route(context);
      await page.goto(origin);
      understudy.model.use([
        { match: { userMessage: 'plain' }, response: { content: 'a plain answer' } },
        { match: { userMessage: 'stream' }, response: { content: 'a streamed answer', chunkSize: 4 } },
        {
          match: { userMessage: 'busy' },
          response: { error: { status: 429, message: 'slow down', retryAfter: 7 } },
        },
      ]);
      const run = await understudy.run(async () => [
        await askFromPage(page, 'plain'),
        await askFromPage(page, 'stream', true),
        await askFromPage(page, 'busy'),
      ]);
      const [plain, streamed, busy] = run.output ?? [];
      expect(plain.status).toBe(200);
      expect(JSON.parse(plain.body).choices[0].message.content).toBe('a plain answer');
      // The stream arrives whole, as server-sent events.
      expect(streamed.body).toMatch(/^data: /);
      expect(streamed.body).toContain('"content":"a st"');
      expect(streamed.body.trim().endsWith('data: [DONE]')).toBe(true);
      // retry-after is not a CORS-safelisted header: the page reads it only because it is exposed.
      expect(busy).toMatchObject({ status: 429, retryAfter: '7' });
      expect(run.modelCalls.map((c) => c.streamed)).toEqual([false, true, false]);
      expect(run).toHaveTerminalState('failed'); // the last call was a 429, on purpose
    } finally {
      await context.close();
    }
  });

  it('credits each page to the run it was routed in, with two runs at once', async () => {
    const pages = [await openPage(), await openPage()];
    try {
      understudy.model.use(script().user('first').replies('one'));
      understudy.model.use(script().user('second').replies('two'));
      const [first, second] = await Promise.all(
        ['first', 'second'].map((text, i) =>
          understudy.run(async () => {
            await understudy.browser.route(pages[i].page);
            await pages[i].page.goto(origin);
            return JSON.parse((await askFromPage(pages[i].page, text)).body).choices[0].message.content;
          }),
        ),
      );
      expect([first.output, second.output]).toEqual(['one', 'two']);
      expect(first.modelCalls).toHaveLength(1);
      expect(first).toHaveFinalMessage('one');
      expect(second.modelCalls).toHaveLength(1);
      expect(second).toHaveFinalMessage('two');
    } finally {
      await Promise.all(pages.map((p) => p.context.close()));
    }
  });

  /** A BrowserContext as far as routing uses one, recording what was asked of it. */
  const fakeContext = () => ({
    route: jest.fn(async (_url: string, _handler: unknown) => {}),
    unroute: jest.fn(async (_url: string, _handler: unknown) => {}),
    routeWebSocket: jest.fn(async (_url: unknown, _handler: unknown) => {}),
    addInitScript: jest.fn(async (_script: { content: string }) => {}),
    on: jest.fn(),
    off: jest.fn(),
  });

  it("routes a page's context, with its WebSockets, and unroute() takes the handler off", async () => {
    const context = fakeContext();
    const page = { route: jest.fn(), context: () => context };
    const routing = await understudy.browser.route(page);
    expect(page.route).not.toHaveBeenCalled();
    expect(context.route).toHaveBeenCalledWith('**/*', expect.any(Function));
    expect(context.routeWebSocket).toHaveBeenCalledWith(expect.any(Function), expect.any(Function));
    expect(context.addInitScript).toHaveBeenCalledWith({
      content: expect.stringContaining('understudyGuard'),
    });
    await routing.unroute();
    expect(context.unroute).toHaveBeenCalledWith('**/*', context.route.mock.calls[0][1]);
  });

  it("refuses a Playwright that cannot route WebSockets: a page's would reach the network unseen", async () => {
    const { routeWebSocket: _, ...old } = fakeContext();
    await expect(understudy.browser.route(old)).rejects.toThrow(
      'understudy.browser.route(pageOrContext): this Playwright has no routeWebSocket (added in Playwright 1.48)',
    );
    expect(old.route).not.toHaveBeenCalled();
  });

  it('refuses what is not a page or a context, naming the argument', async () => {
    await expect(understudy.browser.route({ goto() {} })).rejects.toThrow(
      'understudy.browser.route(pageOrContext): expected a Playwright Page or BrowserContext (an object with route(url, handler)), got object',
    );
    await expect(understudy.browser.route(undefined)).rejects.toThrow(/got undefined/);
  });
});
