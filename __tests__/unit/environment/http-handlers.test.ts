/**
 * The test's own msw handlers, in this process (this suite runs under the environment): what
 * they answer, in which order, how setupServer's API behaves, and what the evidence shows. What
 * must fail a test (a request nothing answers, a handler reset after its test) runs from the
 * installed package: __tests__/installed/network-policy.test.ts.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import https from 'node:https';
import { describe, expect, it } from '@jest/globals';
import { HttpResponse, http, passthrough, ws } from 'msw';
import { setupServer } from 'msw/node';
import { script, understudy } from '../../../src/index';
import { getRuntime } from '../../../src/sandbox/runtime';

const viaHttps = (url: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    https
      .get(url, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });

const WEATHER = 'https://weather.example.test/now';

describe('understudy.http.use', () => {
  it('answers fetch and node:https with the handlers a test adds, newest first', async () => {
    understudy.http.use(http.get(WEATHER, () => HttpResponse.json({ temp: 21 })));
    understudy.http.use(
      http.get(WEATHER, ({ request }) =>
        new URL(request.url).searchParams.has('old') ? undefined : HttpResponse.json({ temp: 30 }),
      ),
    );
    expect(await (await fetch(WEATHER)).json()).toEqual({ temp: 30 });
    // The newer handler matched without answering: as in msw, the next one answers.
    expect(await (await fetch(`${WEATHER}?old`)).json()).toEqual({ temp: 21 });
    expect(await viaHttps(WEATHER)).toEqual({ status: 200, body: '{"temp":30}' });
  });

  it("answers the undici package's fetch and request too (they reach the runtime before the policy refuses them)", async () => {
    const undici = await import('undici');
    understudy.http.use(
      http.post(WEATHER, async ({ request }) =>
        HttpResponse.json({ echo: await request.text() }, { status: 201 }),
      ),
    );
    const viaFetch = await undici.fetch(WEATHER, { method: 'POST', body: 'a' });
    expect([viaFetch.status, await viaFetch.json()]).toEqual([201, { echo: 'a' }]);
    const viaRequest = await undici.request(WEATHER, { method: 'POST', body: 'b' });
    expect([viaRequest.statusCode, await viaRequest.body.json()]).toEqual([201, { echo: 'b' }]);
    const run = await understudy.run(() =>
      undici.fetch(WEATHER, { method: 'POST', body: 'c' }).then((r) => r.json()),
    );
    expect(run.output).toEqual({ echo: 'c' });
    expect(getRuntime().testEvidence().runs[0].httpRequests).toEqual([
      expect.objectContaining({ method: 'POST', url: WEATHER, status: 201 }),
    ]);
  });

  it('never answers provider hosts: the mock model does', async () => {
    understudy.http.use(
      http.post('https://api.openai.com/v1/chat/completions', () => HttpResponse.text('msw')),
    );
    understudy.model.use(script().user('hi').replies('from the model'));
    const response = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect((await response.json()).choices[0].message.content).toBe('from the model');
  });

  it('names what it cannot take: an array not spread, a WebSocket handler, anything else', () => {
    const handler = http.get(WEATHER, () => HttpResponse.json({}));
    expect(() => understudy.http.use([handler] as never)).toThrow(
      'jest-understudy: understudy.http.use(...): argument 1 is an array of 1 handler(s); spread it: understudy.http.use(...handlers)',
    );
    const chat = ws.link('wss://chat.example.test');
    for (const webSocket of [chat, chat.addEventListener('connection', () => {})])
      expect(() => understudy.http.use(webSocket as never)).toThrow(
        "argument 1 is an msw WebSocket handler (ws.link(…)); jest-understudy does not serve WebSocket. Start a WebSocket server on loopback in the test instead (the ws package's WebSocketServer): connections to a server of the test process pass through.",
      );
    expect(() => understudy.http.use(handler, 'GET /x' as never)).toThrow(
      `understudy.http.use(...): argument 2 is not an msw request handler (got the string "GET /x"); make one with msw's http.get(url, resolver)`,
    );
  });

  it('notes each answered request in the run that made it and in the trace, and outside runs in the test', async () => {
    understudy.http.use(http.get(WEATHER, () => HttpResponse.json({ temp: 21 })));
    understudy.http.use(
      http.get('https://weather.example.test/missing', () => new HttpResponse(null, { status: 404 })),
    );
    const run = await understudy.run(async () => {
      await fetch(WEATHER);
      return (await fetch('https://weather.example.test/missing')).status;
    });
    expect(run.output).toBe(404);
    await fetch(`${WEATHER}?outside`);
    const evidence = getRuntime().testEvidence();
    expect(evidence.runs[0].httpRequests).toEqual([
      expect.objectContaining({
        method: 'GET',
        url: WEATHER,
        status: 200,
        handler: `GET ${WEATHER}`,
        source: 'understudy.http.use',
        phase: 'test',
      }),
      expect.objectContaining({ url: 'https://weather.example.test/missing', status: 404 }),
    ]);
    expect(evidence.looseHttp).toEqual([expect.objectContaining({ url: `${WEATHER}?outside`, status: 200 })]);
    const spans = run.trace.filter((s) => s.name.startsWith('http '));
    expect(spans.map((s) => [s.name, s.status?.code])).toEqual([
      [`http GET ${WEATHER}`, 1],
      ['http GET https://weather.example.test/missing', 2],
    ]);
  });
});

describe('setupServer (msw/node under the preset)', () => {
  it('answers only while it listens; use, resetHandlers and listHandlers behave as in msw', async () => {
    const base = http.get(WEATHER, () => HttpResponse.json({ from: 'base' }));
    const server = setupServer(base);
    expect(server.readyState).toBe(0);
    // What no handler answers follows the network policy, whatever msw would have done.
    server.listen({ onUnhandledFrame: 'error' });
    expect(server.readyState).toBe(1);
    try {
      expect(await (await fetch(WEATHER)).json()).toEqual({ from: 'base' });
      const override = http.get(WEATHER, () => HttpResponse.json({ from: 'override' }));
      server.use(override);
      expect(server.listHandlers()).toEqual([override, base]);
      expect(await (await fetch(WEATHER)).json()).toEqual({ from: 'override' });
      server.resetHandlers();
      expect(await (await fetch(WEATHER)).json()).toEqual({ from: 'base' });
      const next = http.get(WEATHER, () => HttpResponse.json({ from: 'next' }));
      server.resetHandlers(next);
      expect(server.listHandlers()).toEqual([next]);
      expect(await (await fetch(WEATHER)).json()).toEqual({ from: 'next' });
    } finally {
      server.close();
    }
    expect(server.readyState).toBe(0);
    expect(getRuntime().http.handle(new Request(WEATHER))).toBeUndefined();
  });

  it('answers a `once` handler once until restoreHandlers(), and lets passthrough() go on to the policy', async () => {
    const server = setupServer(
      http.get(WEATHER, () => HttpResponse.json({ n: 1 }), { once: true }),
      http.get(WEATHER, () => HttpResponse.json({ n: 2 })),
      http.get('https://weather.example.test/through', () => passthrough()),
    );
    server.listen();
    try {
      const n = async () => (await (await fetch(WEATHER)).json()).n;
      expect([await n(), await n()]).toEqual([1, 2]);
      server.restoreHandlers();
      expect([await n(), await n()]).toEqual([1, 2]);
      expect(
        await getRuntime().http.handle(new Request('https://weather.example.test/through')),
      ).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it('scopes overrides to a boundary', async () => {
    const server = setupServer(http.get(WEATHER, () => HttpResponse.json({ from: 'base' })));
    server.listen();
    try {
      const inside = server.boundary(async () => {
        server.use(http.get(WEATHER, () => HttpResponse.json({ from: 'boundary' })));
        return (await fetch(WEATHER)).json();
      });
      expect(await inside()).toEqual({ from: 'boundary' });
      expect(await (await fetch(WEATHER)).json()).toEqual({ from: 'base' });
    } finally {
      server.close();
    }
  });

  it('emits the life-cycle events msw emits', async () => {
    const handler = http.get(WEATHER, () => HttpResponse.json({ ok: true }));
    const server = setupServer(handler);
    const seen: string[] = [];
    for (const type of [
      'request:start',
      'request:match',
      'request:unhandled',
      'request:end',
      'response:mocked',
    ])
      server.events.on(
        type as never,
        ((event: { request: Request; response?: Response }) =>
          seen.push(
            `${type} ${event.request.url}${event.response ? ` ${event.response.status}` : ''}`,
          )) as never,
      );
    server.listen();
    try {
      await fetch(WEATHER);
      expect(seen).toEqual([
        `request:start ${WEATHER}`,
        `request:match ${WEATHER}`,
        `request:end ${WEATHER}`,
        `response:mocked ${WEATHER} 200`,
      ]);
      seen.length = 0;
      await getRuntime().http.handle(new Request('https://elsewhere.example.test/'));
      expect(seen).toEqual([
        'request:start https://elsewhere.example.test/',
        'request:unhandled https://elsewhere.example.test/',
        'request:end https://elsewhere.example.test/',
      ]);
    } finally {
      server.close();
    }
  });
});
