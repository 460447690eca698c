// Every transport to a host nothing serves: each agent here swallows the error it gets, so the
// test can only fail through jest-understudy. Every test here must FAIL, naming the host, the
// port and the transport. Run inside a network namespace with only loopback (see the driver).
const { expect, it } = require('./runner-globals.cjs');
const dgram = require('node:dgram');
const dns = require('node:dns');
const http2 = require('node:http2');
const https = require('node:https');
const net = require('node:net');
const tls = require('node:tls');
const { Worker } = require('node:worker_threads');
const OpenAI = require('openai');
const undici = require('undici');
const WebSocketClient = require('ws');
require('jest-understudy');

/** What an agent that swallows errors sees: 'failed' when the call errored, 'answered' otherwise. */
const swallowed = (promise) =>
  promise.then(
    () => 'answered',
    () => 'failed',
  );

const socketOutcome = (socket, ready = 'connect') =>
  new Promise((resolve) => {
    socket.once(ready, () => {
      socket.destroy();
      resolve('answered');
    });
    socket.once('error', () => resolve('failed'));
  });

/** What an agent sees of a WebSocket: 'open', or 'failed' on an error. */
const webSocketOutcome = (socket) =>
  new Promise((resolve) => {
    socket.onopen = () => resolve('open');
    socket.onerror = () => resolve('failed');
  });

it('undici.fetch to tracker.invalid', async () => {
  expect(await swallowed(undici.fetch('https://tracker.invalid/collect'))).toBe('failed');
});

it('new OpenAI({ fetch: undici.fetch }) with a base URL nothing serves', async () => {
  const client = new OpenAI({ fetch: undici.fetch, baseURL: 'https://llm.invalid/v1', maxRetries: 0 });
  const outcome = await swallowed(
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(outcome).toBe('failed');
});

it('undici.request to tracker.invalid', async () => {
  expect(
    await swallowed(undici.request('https://tracker.invalid/collect', { method: 'POST', body: 'x' })),
  ).toBe('failed');
});

it('undici.stream to tracker.invalid', async () => {
  const { Writable } = require('node:stream');
  const outcome = await swallowed(
    undici.stream(
      'https://tracker.invalid/stream',
      { method: 'GET' },
      () => new Writable({ write: (_chunk, _encoding, done) => done() }),
    ),
  );
  expect(outcome).toBe('failed');
});

it('undici.fetch through an explicit Agent to agent.invalid', async () => {
  const dispatcher = new undici.Agent();
  expect(await swallowed(undici.fetch('https://agent.invalid/collect', { dispatcher }))).toBe('failed');
  await dispatcher.close();
});

it('an undici.Client to client.invalid', async () => {
  const client = new undici.Client('http://client.invalid:8080');
  expect(await swallowed(client.request({ path: '/', method: 'GET' }))).toBe('failed');
  await client.close();
});

it('net.connect to db.invalid:5432', async () => {
  expect(await socketOutcome(net.connect(5432, 'db.invalid'))).toBe('failed');
});

it('tls.connect to tls.invalid:8443', async () => {
  expect(await socketOutcome(tls.connect({ host: 'tls.invalid', port: 8443 }), 'secureConnect')).toBe(
    'failed',
  );
});

it('http2.connect to h2.invalid', async () => {
  const session = http2.connect('https://h2.invalid');
  const outcome = await new Promise((resolve) => {
    session.once('connect', () => resolve('answered'));
    session.once('error', () => resolve('failed'));
  });
  session.destroy();
  expect(outcome).toBe('failed');
});

it('dgram send to udp.invalid:5353', async () => {
  const socket = dgram.createSocket('udp4');
  const outcome = await new Promise((resolve) =>
    socket.send('ping', 5353, 'udp.invalid', (e) => resolve(e ? 'failed' : 'sent')),
  );
  socket.close();
  expect(outcome).toBe('failed');
});

it('dns.lookup of dns.invalid', async () => {
  const outcome = await new Promise((resolve) =>
    dns.lookup('dns.invalid', (e) => resolve(e ? 'failed' : 'resolved')),
  );
  expect(outcome).toBe('failed');
});

it('the global WebSocket to ws.invalid', async () => {
  // Node 20 has no global WebSocket: undici's is the same client.
  const WebSocket = globalThis.WebSocket ?? undici.WebSocket;
  const outcome = await webSocketOutcome(new WebSocket('wss://ws.invalid/socket'));
  expect(outcome).toBe('failed');
});

it("undici's WebSocket to undici-ws.invalid", async () => {
  const outcome = await webSocketOutcome(new undici.WebSocket('ws://undici-ws.invalid:8080/socket'));
  expect(outcome).toBe('failed');
});

it("undici's WebSocket to a provider path no socket protocol serves", async () => {
  const outcome = await webSocketOutcome(new undici.WebSocket('wss://api.openai.com/v1/no-such-socket'));
  expect(outcome).toBe('failed');
});

it("undici's WebSocket to a provider host through an explicit Agent", async () => {
  const dispatcher = new undici.Agent();
  const outcome = await webSocketOutcome(
    new undici.WebSocket('wss://api.anthropic.com/v1/no-such-socket', { dispatcher }),
  );
  await dispatcher.close();
  expect(outcome).toBe('failed');
});

it('the ws package to ws-package.invalid', async () => {
  const outcome = await new Promise((resolve) => {
    const socket = new WebSocketClient('wss://ws-package.invalid/socket');
    socket.on('open', () => resolve('open'));
    socket.on('error', () => resolve('failed'));
  });
  expect(outcome).toBe('failed');
});

it('node:https to https.invalid', async () => {
  const outcome = await new Promise((resolve) => {
    https.get('https://https.invalid/health', () => resolve('answered')).on('error', () => resolve('failed'));
  });
  expect(outcome).toBe('failed');
});

/** Runs `code` in a worker thread; it posts what it saw. */
const inWorker = (code) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('message', resolve);
    worker.once('error', reject);
  });

it('fetch in a worker thread to worker.invalid', async () => {
  const outcome = await inWorker(`
    const { parentPort } = require('node:worker_threads');
    fetch('https://worker.invalid/collect').then(() => parentPort.postMessage('answered'), () => parentPort.postMessage('failed'));
  `);
  expect(outcome).toBe('failed');
});

it('net.connect in a worker thread to worker-net.invalid:6379', async () => {
  const outcome = await inWorker(`
    const { parentPort } = require('node:worker_threads');
    const socket = require('node:net').connect(6379, 'worker-net.invalid');
    socket.once('connect', () => parentPort.postMessage('answered'));
    socket.once('error', () => parentPort.postMessage('failed'));
  `);
  expect(outcome).toBe('failed');
});

it('fetch in a worker a worker started, to nested.invalid', async () => {
  const outcome = await inWorker(`
    const { Worker, parentPort } = require('node:worker_threads');
    const inner = new Worker(
      "fetch('https://nested.invalid/').then(() => 'answered', () => 'failed').then((m) => require('node:worker_threads').parentPort.postMessage(m))",
      { eval: true },
    );
    inner.once('message', (m) => parentPort.postMessage(m));
  `);
  expect(outcome).toBe('failed');
});
