// Sockets the `ws` package opens, whichever msw the project installed (the CI consumer jobs run this
// with msw 2 and msw 3): a provider host is answered in process however the request is made, a
// loopback server of the test is reached as it is, and a host nothing serves fails the test
// naming its URL. Tests named "must fail" hold a socket the network policy refuses; the driver
// checks each fails with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const https = require('node:https');
const WebSocket = require('ws');
const OpenAI = require('openai');
const { ResponsesWS } = require('openai/resources/responses/ws');
const { understudy, script } = require('jest-understudy');

const RESPONSES = 'wss://api.openai.com/v1/responses';

/** Resolves with the first message that passes `wanted` (parsed JSON), rejects on error or close. */
const firstMessage = (socket, wanted) =>
  new Promise((resolve, reject) => {
    socket.on('message', (data) => {
      const event = JSON.parse(String(data));
      if (wanted(event)) resolve(event);
    });
    socket.on('error', reject);
    socket.on('close', (code) => reject(new Error(`the socket closed (${code})`)));
  });

/** One Responses WebSocket-mode turn on a socket the `ws` package opened: the completed response's text. */
async function oneTurn(socket, input) {
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const completed = firstMessage(socket, (e) => e.type === 'response.completed' || e.type === 'error');
  socket.send(JSON.stringify({ type: 'response.create', model: 'gpt-4.1', input }));
  const event = await completed;
  socket.close();
  if (event.type === 'error') throw new Error(`the turn failed: ${JSON.stringify(event.error)}`);
  return event.response.output[0].content[0].text;
}

/** Whether the socket opened: 'open', or 'failed' when it errored or closed first. */
const outcome = (socket) =>
  new Promise((resolve) => {
    socket.on('open', () => resolve('open'));
    socket.on('error', () => resolve('failed'));
    socket.on('close', () => resolve('failed'));
  });

it.each([
  ['its own connection', {}],
  ['an https.Agent of its own', { agent: new https.Agent({ keepAlive: false }) }],
])('the ws package to a provider host with %s is answered in process', async (_how, options) => {
  understudy.model.use(script().user('Say hi').replies('Hi from the socket.'));
  const socket = new WebSocket(RESPONSES, { headers: { Authorization: 'Bearer sk-test' }, ...options });
  expect(await oneTurn(socket, 'Say hi')).toBe('Hi from the socket.');
  expect(understudy.model.calls.map((c) => [c.protocol, c.url])).toEqual([
    ['openai.responses', 'https://api.openai.com/v1/responses'],
  ]);
  expect(understudy.sockets.map((s) => [s.url, s.protocol])).toEqual([[RESPONSES, 'openai.responses.ws']]);
});

/**
 * A weather agent on the openai SDK's ResponsesWS (the `ws` package): runs each tool the model calls
 * and sends its result on with previous_response_id, until the model answers.
 */
async function weatherAgent() {
  const socket = new ResponsesWS(new OpenAI({ apiKey: 'sk-test', maxRetries: 0 }));
  const turn = (body) =>
    new Promise((resolve, reject) => {
      const off = () => {
        socket.off('response.completed', done);
        socket.off('error', failed);
      };
      const done = (event) => {
        off();
        resolve(event.response);
      };
      const failed = (event) => {
        off();
        reject(new Error(`the turn failed: ${JSON.stringify(event?.error ?? event)}`));
      };
      socket.on('response.completed', done);
      socket.on('error', failed);
      socket.send({ type: 'response.create', model: 'gpt-4.1', tools: TOOLS, ...body });
    });
  try {
    let response = await turn({ input: 'Weather in Paris?' });
    for (let step = 0; step < 3; step++) {
      const calls = response.output.filter((item) => item.type === 'function_call');
      if (calls.length === 0) return response.output_text ?? response.output[0].content[0].text;
      const input = calls.map((call) => ({
        type: 'function_call_output',
        call_id: call.call_id,
        output: JSON.stringify({ city: JSON.parse(call.arguments).city, tempC: 18 }),
      }));
      response = await turn({ previous_response_id: response.id, input });
    }
    throw new Error('the agent gave up');
  } finally {
    socket.close();
  }
}

const TOOLS = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    strict: false,
  },
];
const weather = () =>
  script().user('Weather in Paris?').callsTool('get_weather', { city: 'Paris' }).replies('18°C in Paris.');

it("the openai SDK's ResponsesWS runs a tool loop over one socket", async () => {
  understudy.model.use(weather());
  const run = await understudy.run(() => weatherAgent());
  expect(run).toHaveCalledToolSequence(['get_weather']);
  expect(run).toHaveFinalMessage('18°C in Paris.');
  expect(understudy.sockets.map((s) => [s.url, s.protocol])).toEqual([[RESPONSES, 'openai.responses.ws']]);
});

it("must fail: the openai SDK's ResponsesWS, the test expects get_time", async () => {
  understudy.model.use(weather());
  const run = await understudy.run(() => weatherAgent());
  expect(run).toHaveCalledToolSequence(['get_time']);
});

it('the ws package to a WebSocket server the test started on loopback reaches it', async () => {
  const server = http.createServer();
  const wss = new WebSocket.Server({ server });
  wss.on('connection', (peer) => peer.on('message', (data) => peer.send(`echo: ${data}`)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = new WebSocket(`ws://127.0.0.1:${server.address().port}/echo`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const reply = new Promise((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send('ping');
    expect(await reply).toBe('echo: ping');
    socket.close();
    expect(understudy.sockets).toEqual([]);
  } finally {
    wss.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

it('must fail: the ws package to a host nothing serves', async () => {
  const socket = new WebSocket('wss://realtime.tracker.invalid/v1/socket');
  expect(await outcome(socket)).toBe('failed');
});

it('must fail: the ws package to a host nothing serves, over plain ws://', async () => {
  const socket = new WebSocket('ws://tracker.invalid:8080/socket');
  expect(await outcome(socket)).toBe('failed');
});
