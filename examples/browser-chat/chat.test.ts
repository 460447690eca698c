/**
 * A chat UI in headless Chromium, driven by Playwright: the page's own script calls the OpenAI
 * Chat Completions API and the task list's REST API (routed into this file's model and world by
 * `understudy.browser.route`), or posts to the app's server, whose agent calls the model with the
 * SDK in this process (served without any routing: the page reaching the test's own server on
 * 127.0.0.1 passes the network policy).
 *
 * @understudy-world ./tasks.world.yaml
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createChatServer } from './server';

const CHROMIUM = process.env.UNDERSTUDY_CHROMIUM ?? '/usr/bin/chromium';

let browser: Browser;
let server: Server;
let origin: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (set UNDERSTUDY_CHROMIUM)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium's own traffic (autofill, updates) is not a page's: no route sees it.
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-features=AutofillServerCommunication',
    ],
  });
  server = createChatServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(async () => {
  context = await browser.newContext();
  // The whole context: its pages, popups, workers, service workers and WebSockets.
  await understudy.browser.route(context);
  page = await context.newPage();
});

afterEach(() => context.close());

/** Types into the chat, sends it and returns the next answer (or error) the page shows. */
async function chat(path: string, message: string): Promise<string | null> {
  await page.goto(`${origin}${path}`);
  await page.getByLabel('Message').fill(message);
  await page.getByRole('button', { name: 'Send' }).click();
  return page.locator('li.assistant, li.error').first().textContent();
}

const ADD_MILK = 'Add "buy milk" to my list';

const addsMilk = script()
  .user(ADD_MILK)
  .callsTool('add_task', { title: 'Buy milk' })
  .replies('Added "Buy milk" to your list.');

const tasks = () => Object.values(understudy.world.state.tasks.tasks as Record<string, unknown>);

describe('the agent in the page (client-side fetch)', () => {
  it('adds the task through the world API and shows the model answer', async () => {
    understudy.model.use(addsMilk);
    const run = await understudy.run(() => chat('/', ADD_MILK));

    expect(run.output).toBe('Added "Buy milk" to your list.');
    expect(run).toHaveCalledToolSequence(['add_task']);
    expect(run).toHaveCalledTool('add_task', { title: 'Buy milk' });
    expect(run).toHaveFinalMessage('Added "Buy milk"');
    expect(run.modelCalls).toHaveLength(2);
    // The page ran the tool against the world: its result went back to the model.
    expect(run.toolCalls[0].result).toMatchObject({ title: 'Buy milk', done: false });
    expect(tasks()).toContainEqual(expect.objectContaining({ title: 'Buy milk', done: false }));
  });

  it('a page whose agent calls the wrong tool fails the trajectory matcher', async () => {
    understudy.model.use(
      script().user(ADD_MILK).callsTool('list_tasks', {}).replies('You have 1 task: Water the plants.'),
    );
    const run = await understudy.run(() => chat('/', ADD_MILK));

    expect(run.output).toContain('Water the plants');
    expect(() => expect(run).toHaveCalledTool('add_task', { title: 'Buy milk' })).toThrow(/add_task/);
    expect(tasks()).toHaveLength(1);
  });
});

describe('the agent on the server (the SDK in the test process)', () => {
  it('answers through the app server, which needs no routing', async () => {
    understudy.model.use(addsMilk);
    const run = await understudy.run(() => chat('/server.html', ADD_MILK));

    expect(run.output).toBe('Added "Buy milk" to your list.');
    expect(run).toHaveCalledTool('add_task', { title: 'Buy milk' });
    expect(run).toHaveTerminalState('succeeded');
    expect(tasks()).toContainEqual(expect.objectContaining({ title: 'Buy milk' }));
  });
});
