// msw starts on the first request that needs it: a file whose agent calls its provider with fetch
// never starts it, and the file's first node:https request does, and is served by the mock model.
const { expect, it } = require('./runner-globals.cjs');
const https = require('node:https');
const { types } = require('node:util');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

// The worker's own global, where msw patches (Jest runs this file in a sandbox realm of its own; a
// core module's functions belong to the worker's realm).
const worker = require('node:fs').readFileSync.constructor('return globalThis')();
// While msw listens, msw 2 and 3 put a Proxy on the global WebSocket (Node >= 22), and msw 2 keeps
// each of its interceptors on the global under a symbol named for it.
const mswListening = () =>
  (worker.WebSocket !== undefined && types.isProxy(worker.WebSocket)) ||
  Object.getOwnPropertySymbols(worker).some((symbol) => /-interceptor$/.test(symbol.description ?? ''));

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

const overHttps = () =>
  new Promise((resolve, reject) => {
    const request = https.request(
      'https://api.openai.com/v1/chat/completions',
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve(JSON.parse(body).choices[0].message.content));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(ask));
  });

it('a provider call over fetch (the openai SDK) is served, and msw has not started', async () => {
  understudy.model.use(script().user('Hi').replies('Hello over fetch.'));
  const client = new OpenAI();
  const run = await understudy.run(async () => {
    const completion = await client.chat.completions.create(ask);
    return completion.choices[0].message.content;
  });
  expect(run).toHaveFinalMessage('Hello over fetch.');
  expect(mswListening()).toBe(false);
});

it("the file's first node:https request starts msw, and a provider call over it is served", async () => {
  understudy.model.use(script().user('Hi').replies('Hello over https.'));
  const run = await understudy.run(overHttps);
  expect(run).toHaveFinalMessage('Hello over https.');
  expect(run.modelCalls).toHaveLength(1);
  expect(mswListening()).toBe(true);
});

it('must fail: a provider call over node:https whose reply the test does not expect', async () => {
  understudy.model.use(script().user('Hi').replies('Hello over https.'));
  const run = await understudy.run(overHttps);
  expect(run).toHaveFinalMessage('Goodbye.');
});
