/**
 * understudy.browser.route from the installed package: a chat page in headless Chromium whose own
 * script calls the OpenAI Chat Completions API and a world HTTP API. The driver runs it in a network
 * namespace with only loopback, with network.allow ["allowed.invalid:443"].
 *
 * @understudy-world ./browser.world.yaml
 */
const { afterAll, afterEach, beforeAll, beforeEach, expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const { chromium } = require('playwright-core');
const { script, understudy } = require('jest-understudy');

const PAGE = `<!doctype html>
<form id="chat"><input id="m" aria-label="Message"><button type="submit">Send</button></form>
<ol id="log"></ol>
<script>
const tools = {
  list_notes: () => fetch('https://notes.example.test/api/notes'),
  add_note: (args) => fetch('https://notes.example.test/api/notes', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) }),
};
const show = (role, text) => {
  const li = document.createElement('li'); li.className = role; li.textContent = text;
  document.getElementById('log').append(li);
};
async function send(text) {
  const messages = [{ role: 'user', content: text }];
  for (let step = 0; step < 5; step++) {
    const r = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-page' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: [
        { type: 'function', function: { name: 'list_notes', parameters: { type: 'object', properties: {} } } },
        { type: 'function', function: { name: 'add_note', parameters: { type: 'object', properties: { text: { type: 'string' } } } } },
      ] }),
    });
    if (!r.ok) return show('error', 'model ' + r.status);
    const message = (await r.json()).choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return show('assistant', message.content);
    for (const call of message.tool_calls) {
      const result = await (await tools[call.function.name](JSON.parse(call.function.arguments))).text();
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
}
document.getElementById('chat').addEventListener('submit', (e) => {
  e.preventDefault();
  send(document.getElementById('m').value).catch((error) => show('error', String(error)));
});
</script>`;

let browser;
let server;
let origin;
let context;
let page;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.UNDERSTUDY_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // Chromium's own traffic (autofill, updates) is not a page's: page.route never sees it.
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-features=AutofillServerCommunication',
    ],
  });
  server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
}, 30_000);

afterAll(async () => {
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  await understudy.browser.route(page);
  await page.goto(origin);
});

afterEach(() => context.close());

async function chat(text) {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  return page.locator('li.assistant, li.error').first().textContent();
}

/** A fetch the page's script makes; 'failed' when the page got a network error. */
const pageFetch = (url, init) =>
  page.evaluate(
    ([u, i]) =>
      fetch(u, i).then(
        (r) => r.status,
        () => 'failed',
      ),
    [url, init],
  );

const notes = () => Object.values(understudy.world.state.notes.notes);

const addsNote = script()
  .user('note: buy milk')
  .callsTool('add_note', { text: 'buy milk' })
  .replies('Noted: buy milk.');

it('a chat page in Chromium: its script calls the model and the world API', async () => {
  understudy.model.use(addsNote);
  const run = await understudy.run(() => chat('note: buy milk'));
  expect(run.output).toBe('Noted: buy milk.');
  expect(run).toHaveCalledToolSequence(['add_note']);
  expect(run).toHaveCalledTool('add_note', { text: 'buy milk' });
  expect(run.toolCalls[0].result).toMatchObject({ text: 'buy milk' });
  expect(notes()).toEqual([expect.objectContaining({ text: 'buy milk' })]);
});

it("the page's agent calls the wrong tool", async () => {
  understudy.model.use(
    script().user('note: buy milk').callsTool('list_notes', {}).replies('You have no notes.'),
  );
  const run = await understudy.run(() => chat('note: buy milk'));
  expect(run).toHaveCalledTool('add_note', { text: 'buy milk' });
});

it('a page that calls a host nothing serves: telemetry.invalid', async () => {
  expect(await pageFetch('https://telemetry.invalid/collect', { method: 'POST', body: 'x' })).toBe('failed');
});

it('a page that calls a loopback port no server of the test listens on', async () => {
  const closed = http.createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address();
  await new Promise((resolve) => closed.close(resolve));
  expect(await pageFetch(`http://127.0.0.1:${port}/health`)).toBe('failed');
});

it('a page whose model request matches no fixture', async () => {
  understudy.model.use(addsNote);
  const answer = await chat('something else entirely');
  expect(answer).toMatch(/^model \d+$/);
});

it('network.allow lets allowed.invalid:443 through from the page', async () => {
  // The driver's trap listens there but speaks no TLS: the request left, and failed outside.
  expect(await pageFetch('https://allowed.invalid/ping')).toBe('failed');
});
