// A page in headless Chromium, routed by understudy.browser.route, whose own script runs a tool
// loop over the Responses API's WebSocket mode: the route answers the socket, nothing connects.
const { afterAll, beforeAll, expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const { chromium } = require('playwright-core');
const { script, understudy } = require('jest-understudy');

const PAGE = `<!doctype html>
<ol id="log"></ol>
<script>
const show = (text) => { const li = document.createElement('li'); li.textContent = text; document.getElementById('log').append(li); };
window.ask = (question) => new Promise((resolve) => {
  const socket = new WebSocket('wss://api.openai.com/v1/responses');
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }];
  const create = (body) => socket.send(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', tools, ...body }));
  socket.onopen = () => create({ input: question });
  socket.onclose = (event) => resolve('closed ' + event.code);
  socket.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === 'error') return resolve('error ' + JSON.stringify(event.error));
    if (event.type !== 'response.completed') return;
    const calls = event.response.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) {
      const text = event.response.output[0].content[0].text;
      show(text);
      socket.close(1000);
      return resolve(text);
    }
    create({
      previous_response_id: event.response.id,
      input: calls.map((call) => ({ type: 'function_call_output', call_id: call.call_id, output: '{"tempC":18}' })),
    });
  };
});
</script>`;

let browser;
let server;
let origin;

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
  await browser.close();
  await new Promise((resolve) => server.close(resolve));
});

it('a page runs a tool loop over Responses WebSocket mode, answered in the route', async () => {
  understudy.model.use(
    script().user('Weather in Paris?').callsTool('get_weather', { city: 'Paris' }).replies('18°C in Paris.'),
  );
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await understudy.browser.route(page);
    await page.goto(origin);
    const run = await understudy.run(() => page.evaluate(() => window.ask('Weather in Paris?')));
    expect(run.output).toBe('18°C in Paris.');
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
    expect(run).toHaveFinalMessage('18°C in Paris.');
    expect(understudy.sockets.map((s) => [s.url, s.protocol])).toEqual([
      ['wss://api.openai.com/v1/responses', 'openai.responses.ws'],
    ]);
  } finally {
    await context.close();
  }
});

it('must fail: the page asks for the wrong city', async () => {
  understudy.model.use(
    script().user('Weather in Paris?').callsTool('get_weather', { city: 'Paris' }).replies('18°C in Paris.'),
  );
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await understudy.browser.route(page);
    await page.goto(origin);
    const run = await understudy.run(() => page.evaluate(() => window.ask('Weather in Paris?')));
    expect(run).toHaveCalledTool('get_weather', { city: 'Lyon' });
  } finally {
    await context.close();
  }
});
