// Provider hosts are served whichever client reaches them (undici's fetch, request, an explicit
// Agent, Client and Pool, http2), and the call belongs to the run that made it. Loopback passes.
// Every test here must pass.
const { expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const http2 = require('node:http2');
const https = require('node:https');
const net = require('node:net');
const OpenAI = require('openai');
const undici = require('undici');
const WebSocketClient = require('ws');
const { WebSocketServer } = require('ws');
const { understudy, script } = require('jest-understudy');

const CHAT = 'https://api.openai.com/v1/chat/completions';
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-test' };
const reply = (json) => JSON.parse(json).choices[0].message.content;

async function served(fetch) {
  understudy.model.use(script().user('hi').replies('hello'));
  const client = new OpenAI({ fetch, maxRetries: 0 });
  const run = await understudy.run(() =>
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(run).toHaveFinalMessage('hello');
  expect(run.modelCalls).toHaveLength(1);
}

it('serves new OpenAI({ fetch: undici.fetch })', () => served(undici.fetch));

it('serves undici.fetch through an explicit Agent, attributing the call to the run', () => {
  const dispatcher = new undici.Agent();
  return served((url, init) => undici.fetch(url, { ...init, dispatcher })).finally(() => dispatcher.close());
});

it('serves a streamed reply through an explicit undici Agent', async () => {
  understudy.model.use(script().user('hi').replies('hello in pieces'));
  const dispatcher = new undici.Agent();
  const client = new OpenAI({
    fetch: (url, init) => undici.fetch(url, { ...init, dispatcher }),
    maxRetries: 0,
  });
  const run = await understudy.run(async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  });
  await dispatcher.close();
  expect(run.output).toBe('hello in pieces');
  expect(run.modelCalls).toHaveLength(1);
});

it('serves undici.request', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const response = await undici.request(CHAT, { method: 'POST', headers, body });
  expect(response.statusCode).toBe(200);
  expect(reply(await response.body.text())).toBe('hello');
});

it('serves undici.Client and undici.Pool', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  for (const dispatcher of [
    new undici.Client('https://api.openai.com'),
    new undici.Pool('https://api.openai.com'),
  ]) {
    const response = await dispatcher.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers,
      body,
    });
    expect(reply(await response.body.text())).toBe('hello');
    await dispatcher.close();
  }
});

it('serves http2.connect', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const session = http2.connect('https://api.openai.com');
  const text = await new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': '/v1/chat/completions', ...headers });
    let data = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      data += chunk;
    });
    stream.on('end', () => resolve(data));
    stream.on('error', reject);
    stream.end(body);
  });
  session.close();
  expect(reply(text)).toBe('hello');
});

it('serves node:https (answered by msw)', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const text = await new Promise((resolve, reject) => {
    const request = https.request(CHAT, { method: 'POST', headers }, (res) => {
      let data = '';
      res.on('data', (chunk) => {
        data += chunk;
      });
      res.on('end', () => resolve(data));
    });
    request.on('error', reject);
    request.end(body);
  });
  expect(reply(text)).toBe('hello');
});

it('lets WebSocket clients reach a loopback WebSocket server: ws, and the global WebSocket where Node has one', async () => {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  server.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo ${data}`)));
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `ws://127.0.0.1:${server.address().port}/`;
  const echo = (socket, on) =>
    new Promise((resolve, reject) => {
      on(socket, 'open', () => socket.send('hi'));
      on(socket, 'message', (event) => {
        resolve(String(event.data ?? event));
        socket.close();
      });
      on(socket, 'error', reject);
    });
  try {
    const viaWs = await echo(new WebSocketClient(url), (s, name, f) =>
      s.on(name, name === 'message' ? (d) => f(d) : f),
    );
    const Global = globalThis.WebSocket ?? undici.WebSocket;
    const viaGlobal = await echo(new Global(url), (s, name, f) => s.addEventListener(name, f));
    expect([viaWs, viaGlobal]).toEqual(['echo hi', 'echo hi']);
  } finally {
    server.close();
  }
});

it('lets loopback through: a server this test started answers undici, node:http and net', async () => {
  const server = http.createServer((req, res) => res.end(`local ${req.url}`));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    const viaUndici = await (await undici.fetch(`http://127.0.0.1:${port}/a`)).text();
    const viaFetch = await (await fetch(`http://localhost:${port}/b`)).text();
    const viaHttp = await new Promise((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/c`, (res) => {
          let data = '';
          res.on('data', (chunk) => {
            data += chunk;
          });
          res.on('end', () => resolve(data));
        })
        .on('error', reject);
    });
    const viaNet = await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.end('GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect([viaUndici, viaFetch, viaHttp]).toEqual(['local /a', 'local /b', 'local /c']);
    expect(viaNet).toContain('local /d');
  } finally {
    server.close();
  }
});
