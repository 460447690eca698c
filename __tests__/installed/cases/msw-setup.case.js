// An existing msw setup kept working under the preset: msw/setup.js (setupFilesAfterEnv) starts
// setupServer(...handlers) from msw/server.js. Its handlers answer their host; server.use,
// resetHandlers and close behave as in msw; what no handler answers goes to jest-understudy, so
// provider traffic is replayed and anything else fails the test with the network policy's message
// (not msw's onUnhandledRequest). The driver runs this in a network namespace with only loopback.
const https = require('node:https');
const { expect, it } = require('./runner-globals.cjs');
const { http, HttpResponse } = require('msw');
const OpenAI = require('openai');
const undici = require('undici');
const { script, understudy } = require('jest-understudy');
const handlers = require('./msw/handlers');
const { server } = require('./msw/server');

const WEATHER = 'https://weather.example.invalid/now';

/** What an agent that swallows errors sees: 'failed' when the call errored, 'answered' otherwise. */
const swallowed = (promise) =>
  promise.then(
    () => 'answered',
    () => 'failed',
  );

const viaHttps = (url) =>
  new Promise((resolve, reject) => {
    https
      .get(url, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve(JSON.parse(body)));
      })
      .on('error', reject);
  });

it("the setup file's handlers answer their host, for fetch, undici and node:https", async () => {
  expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 21 });
  expect(await (await undici.fetch(WEATHER)).json()).toEqual({ temp: 21 });
  expect(await viaHttps(WEATHER)).toEqual({ temp: 21 });
  const posted = await fetch('https://weather.example.invalid/alerts', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ level: 'red' }),
  });
  expect([posted.status, await posted.json()]).toEqual([201, { received: { level: 'red' } }]);
});

it('server.use overrides a handler for this test', async () => {
  server.use(http.get(WEATHER, () => HttpResponse.json({ temp: 30 })));
  expect(server.listHandlers()).toHaveLength(handlers.length + 1);
  expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 30 });
});

it("resetHandlers (the setup's afterEach) took that override away", async () => {
  expect(server.listHandlers()).toEqual(handlers);
  expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 21 });
});

it('provider traffic no handler answers is replayed, not handed to onUnhandledRequest', async () => {
  understudy.model.use(script().user('weather?').replies('It is 21 degrees.'));
  const client = new OpenAI();
  const run = await understudy.run(async () => {
    const { temp } = await (await fetch(WEATHER)).json();
    const reply = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'weather?' }],
    });
    return `${temp}: ${reply.choices[0].message.content}`;
  });
  expect(run.output).toBe('21: It is 21 degrees.');
  expect(run).toHaveFinalMessage('It is 21 degrees.');
});

// Must fail: the request no handler answers fails the test, though the agent swallowed the error.
it('a request no handler answers: fetch to unmocked.invalid', async () => {
  expect(await swallowed(fetch('https://unmocked.invalid/v1/data'))).toBe('failed');
});

// Must fail: after close() the server's handlers no longer answer.
it('after server.close(): fetch to its host', async () => {
  server.close();
  expect(await swallowed(fetch(WEATHER))).toBe('failed');
});
