/**
 * A routed browser page's late call: a context routed in the test (its beforeEach) whose page
 * calls the model after the test ended fails the file, never the test running then.
 */
const http = require('node:http');
const { afterAll, beforeAll, beforeEach, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { chromium } = require('playwright-core');
const { script, understudy } = require('jest-understudy');

const PAGE = `<!doctype html><script>
window.askLater = (ms) => setTimeout(() => fetch('https://api.openai.com/v1/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-page' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
}).catch(() => undefined), ms);
</script>`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let browser;
let server;
let origin;
const contexts = [];
let page;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.UNDERSTUDY_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
}, 30_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  const context = await browser.newContext();
  contexts.push(context);
  await understudy.browser.route(context);
  page = await context.newPage();
  await page.goto(origin);
});

it('test 1: its page calls the model after the test ended (the context is left open)', async () => {
  await page.evaluate(() => window.askLater(400));
});

it('test 2: runs while the page of test 1 calls, and sees only its own calls', async () => {
  understudy.model.use(script().user('hello').replies('hi there'));
  const run = await understudy.run(async () => {
    const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    await sleep(1500);
    return completion.choices[0].message.content;
  });
  expect(run.modelCalls).toHaveLength(1);
  expect(understudy.model.calls).toHaveLength(1);
  expect(run).toHaveFinalMessage('hi there');
});
