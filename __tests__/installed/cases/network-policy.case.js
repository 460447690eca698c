// The network policy on loopback: a server of the test process passes (supertest against an
// express app, a server the test or one of its worker threads started); a loopback port another
// process listens on fails the test unless network.allow names it. The driver runs this inside a
// network namespace whose traps listen on 127.0.0.1:5432, :6379, :8080 and :443 (another
// process), with network.allow ["localhost:6379", "*.allowed.invalid:443"].
const { expect, it } = require('./runner-globals.cjs');
const http = require('node:http');
const net = require('node:net');
const { Worker } = require('node:worker_threads');
const express = require('express');
const request = require('supertest');
const undici = require('undici');
require('jest-understudy');

/** What an agent that swallows errors sees: 'failed' when the call errored, 'answered' otherwise. */
const swallowed = (promise) =>
  promise.then(
    () => 'answered',
    () => 'failed',
  );

const connected = (socket) =>
  new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', () => resolve('failed'));
  });

function app() {
  const a = express();
  a.use(express.json());
  a.get('/health', (_req, res) => res.json({ ok: true }));
  a.post('/echo', (req, res) => res.status(201).json(req.body));
  return a;
}

it('supertest against an express app in the test', async () => {
  await request(app()).get('/health').expect(200, { ok: true });
  const echoed = await request(app()).post('/echo').send({ n: 1 });
  expect([echoed.status, echoed.body]).toEqual([201, { n: 1 }]);
});

it('an express app the test started, reached by fetch, undici, node:http and net', async () => {
  const server = app().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  try {
    const viaFetch = await (await fetch(`http://localhost:${port}/health`)).json();
    const viaUndici = await (await undici.fetch(`http://127.0.0.1:${port}/health`)).json();
    const viaHttp = await new Promise((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/health`, (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve(JSON.parse(body)));
        })
        .on('error', reject);
    });
    expect([viaFetch, viaUndici, viaHttp]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(await connected(net.connect(port, '127.0.0.1'))).toBe('connected');
  } finally {
    server.close();
  }
});

it('a server a worker thread started, reached from the test, and one the test started, reached from a worker', async () => {
  const worker = new Worker(
    `const http = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const server = http.createServer((req, res) => res.end('from the worker')).listen(0, '127.0.0.1', () =>
       parentPort.postMessage({ port: server.address().port }));
     parentPort.on('message', async ({ url }) => {
       const text = await fetch(url).then((r) => r.text(), (e) => 'failed: ' + e.message);
       parentPort.postMessage({ text });
       server.close();
     });`,
    { eval: true },
  );
  const next = () => new Promise((resolve) => worker.once('message', resolve));
  const { port } = await next();
  expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('from the worker');
  const server = http.createServer((_req, res) => res.end('from the test')).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  worker.postMessage({ url: `http://127.0.0.1:${server.address().port}/` });
  const { text } = await next();
  server.close();
  await worker.terminate();
  expect(text).toBe('from the test');
});

it('a loopback port another process listens on (a database): net.connect to 127.0.0.1:5432', async () => {
  expect(await connected(net.connect(5432, '127.0.0.1'))).toBe('failed');
});

it('a local model server another process runs: fetch to localhost:8080', async () => {
  const outcome = await swallowed(
    fetch('http://localhost:8080/v1/chat/completions', { method: 'POST', body: '{}' }),
  );
  expect(outcome).toBe('failed');
});

it('network.allow lets localhost:6379 through to the other process', async () => {
  expect(await connected(net.connect(6379, '127.0.0.1'))).toBe('connected');
  expect(await connected(net.connect({ port: 6379, host: 'localhost' }))).toBe('connected');
});

it('network.allow lets *.allowed.invalid:443 through, name lookup included', async () => {
  expect(await connected(net.connect(443, 'api.allowed.invalid'))).toBe('connected');
});
