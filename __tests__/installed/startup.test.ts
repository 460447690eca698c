/**
 * The network is contained before a test file's first line runs, however the start-up of a worker
 * is arranged and whichever transport comes first: the first request of a file (a fetch, node:http,
 * node:https, the undici package, a WebSocket, or a fetch made while the file loads) to a host
 * nothing serves fails the file's test naming the host, even when the agent swallows the error; a
 * first provider call over node:https is served, and a first node:http request a user's msw handler
 * answers is answered. Under Jest (CommonJS and ESM) and Vitest, each file alone.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { SHARED } from './shared';

/** Each file's refusal names the request (method and URL, or the socket's URL), its transport and port. */
const refusal = (request: string, transport: string, host: string, port: number) =>
  `${request} reached the network layer, but nothing mocks it (transport: ${transport}, host: ${host}, port: ${port}).`;

const REFUSED = [
  [
    'startup-first-fetch.case.js',
    refusal('GET https://first-fetch.invalid/v1/models', 'fetch', 'first-fetch.invalid', 443),
  ],
  [
    'startup-first-http.case.js',
    refusal('GET https://first-http.invalid/v1/models', 'http', 'first-http.invalid', 443),
  ],
  [
    'startup-first-plain-http.case.js',
    refusal('GET http://first-plain-http.invalid/v1/models', 'http', 'first-plain-http.invalid', 80),
  ],
  [
    'startup-first-undici.case.js',
    refusal('GET https://first-undici.invalid/v1/models', 'undici', 'first-undici.invalid', 443),
  ],
  [
    'startup-first-top-level.case.js',
    refusal('GET https://first-top-level.invalid/v1/models', 'fetch', 'first-top-level.invalid', 443),
  ],
  [
    'startup-first-websocket.case.js',
    refusal('WebSocket wss://first-websocket.invalid/socket', 'websocket', 'first-websocket.invalid', 443),
  ],
  [
    'startup-first-ws.case.js',
    refusal('WebSocket wss://first-ws.invalid/socket', 'websocket', 'first-ws.invalid', 443),
  ],
] as const;

const message = (test: ChildFile['tests'][number]) =>
  stripVTControlCharacters(test.failureMessages.join('\n'));

describe.each(runnersOf(__filename))('the first request of a test file (%s)', (runner) => {
  const files = new Map<string, ChildFile>();

  beforeAll(async () => {
    const run = await sharedRun('startup-first-request', runner);
    for (const name of SHARED['startup-first-request'].cases) files.set(name, fileOf(run, name));
  }, 240_000);

  it.each(REFUSED)(
    '%s fails its one test naming the request, though the agent swallowed the error',
    (name, line) => {
      const file = files.get(name)!;
      expect(file.tests).toHaveLength(1);
      const [test] = file.tests;
      expect(test.status).toBe('failed');
      expect(message(test)).toContain(`[UNHANDLED_REQUEST]`);
      expect(message(test)).toContain(line);
    },
  );

  it('a first provider call over node:https (the AWS SDK) is served: its tool loop passes', () => {
    const [test, ...rest] = files.get('startup-first-bedrock.case.js')!.tests;
    expect(rest).toHaveLength(0);
    expect([test.status, message(test)]).toEqual(['passed', '']);
  });
});

describe.each(runnersOf(__filename, SHARED['startup-first-handler'].runners))(
  "the first request of a test file, a user's msw handler's (%s)",
  (runner) => {
    let tests: ChildFile['tests'] = [];

    beforeAll(async () => {
      tests = fileOf(await sharedRun('startup-first-handler', runner), 'startup-first-handler.case.js').tests;
    }, 240_000);

    it('the handler answers the first request, over node:http', () => {
      const test = tests.find((t) => !t.title.startsWith('must fail'))!;
      expect([test.status, message(test)]).toEqual(['passed', '']);
    });

    it('the same request fails its test once the handler is reset, naming the host', () => {
      const test = tests.find((t) => t.title.startsWith('must fail'))!;
      expect(test.status).toBe('failed');
      expect(message(test)).toContain('UNHANDLED_REQUEST');
      expect(message(test)).toContain('host: first-handler.invalid');
    });
  },
);
