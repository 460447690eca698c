/**
 * Nothing escapes understudy.browser.route, from the installed package under Jest (CommonJS and
 * ESM) and Vitest: headless Chromium in a
 * network namespace with only loopback, where traps count every connection. A page routed as the
 * docs show opens WebSockets, registers a service worker that proxies its model request (a PWA's
 * respondWith(fetch(event.request))), starts workers and a popup: provider requests are served by
 * the model, the test's own servers pass, everything else fails the test naming it, and nothing
 * reaches the network. A page routed in a test that calls after the test ended fails the file,
 * never the test running then.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, type InstalledRun, messageOf, RUNNERS, runInstalled, statuses } from '../support/installed';
import { type Counts, type IsolatedNetwork, isolatedNetwork } from '../support/netns';
import { runnersOf } from '../support/runner-tier';

const HOSTS = [
  'ws.invalid',
  'sw.invalid',
  'ws-worker.invalid',
  'blob-worker.invalid',
  'wt.invalid',
  'popup.invalid',
];

describe.each(runnersOf(__filename))('routed pages from the installed package (%s)', (runner) => {
  let run: InstalledRun;
  let counts: Counts;
  let lookups: ReturnType<IsolatedNetwork['lookups']>;
  beforeAll(async () => {
    const network = isolatedNetwork(HOSTS);
    run = await runInstalled({
      ...RUNNERS[runner],
      cases: ['ownership-browser-escape.case.js', 'ownership-browser-late.case.js'],
      understudy: { traces: 'off' },
      prefix: network.prefix,
    });
    counts = network.counts();
    lookups = network.lookups();
  }, 120_000);

  describe('a routed page from the installed package: nothing escapes', () => {
    let file: ChildFile;
    beforeAll(() => {
      file = fileOf(run, 'ownership-browser-escape.case.js');
    });

    const failure = (title: string) => {
      const message = stripVTControlCharacters(messageOf(file, title));
      expect(message).toContain('UNHANDLED_REQUEST');
      return message;
    };

    it('answers what the model serves and passes what the test serves, in pages, service workers and workers', () => {
      expect(statuses(file)).toEqual({
        'a page that opens a WebSocket to a host nothing serves: ws.invalid': 'failed',
        'a page that opens a WebSocket to a WebSocket server of the test': 'passed',
        "a PWA whose service worker proxies the page's model request": 'passed',
        'a service worker that proxies a request to a host nothing serves: sw.invalid': 'failed',
        "a dedicated worker's model request is served": 'passed',
        "a dedicated worker's WebSocket to a host nothing serves: ws-worker.invalid": 'failed',
        'a worker made from a blob: its WebSocket to blob-worker.invalid': 'failed',
        'a page that starts a shared worker (Playwright routes none of its requests)': 'failed',
        'a page that opens a WebTransport session to wt.invalid': 'failed',
        'a popup the page opens calls a host nothing serves: popup.invalid': 'failed',
      });
    });

    it('fails each test that tried to reach a host nothing serves, naming it', () => {
      expect(failure('a page that opens a WebSocket to a host nothing serves: ws.invalid')).toContain(
        'WebSocket wss://ws.invalid/live reached the network layer, but nothing mocks it (transport: browser, host: ws.invalid, port: 443).',
      );
      expect(
        failure('a service worker that proxies a request to a host nothing serves: sw.invalid'),
      ).toContain(
        'POST https://sw.invalid/collect reached the network layer, but nothing mocks it (transport: browser, host: sw.invalid, port: 443).',
      );
      expect(failure("a dedicated worker's WebSocket to a host nothing serves: ws-worker.invalid")).toContain(
        'tried a WebSocket to wss://ws-worker.invalid/live from a worker',
      );
      expect(failure('a worker made from a blob: its WebSocket to blob-worker.invalid')).toContain(
        'tried a WebSocket to wss://blob-worker.invalid/live from a worker',
      );
      expect(failure('a page that starts a shared worker (Playwright routes none of its requests)')).toMatch(
        /tried a SharedWorker \(http:\/\/127\.0\.0\.1:\d+\/shared\.js\)/,
      );
      expect(failure('a page that opens a WebTransport session to wt.invalid')).toContain(
        'tried a WebTransport session to https://wt.invalid:4433/session',
      );
      expect(failure('a popup the page opens calls a host nothing serves: popup.invalid')).toContain(
        'GET https://popup.invalid/collect reached the network layer, but nothing mocks it (transport: browser, host: popup.invalid, port: 443).',
      );
    });

    it('lets nothing reach the network: no connection, and no lookup of a provider or refused host', () => {
      // The traps saw the control probe's connections, so they would have seen the page's.
      expect(counts.control).toEqual(expect.objectContaining({ 'tcp:5432': expect.any(Number) }));
      expect(Object.keys(counts.test ?? {}).filter((k) => k.startsWith('tcp:'))).toEqual([]);
      // The service worker's model request never looked the provider up: it was answered in the test.
      expect(lookups.test ?? []).not.toContain('api.openai.com');
      expect((lookups.test ?? []).filter((name) => !/(^|\.)google(apis)?\.com$/.test(name))).toEqual([]);
    });
  });

  describe("a routed page's late calls", () => {
    it("a routed page's late call fails the file, never the test running when it arrives", () => {
      const file = fileOf(run, 'ownership-browser-late.case.js');
      expect(statuses(file)).toEqual({
        'test 1: its page calls the model after the test ended (the context is left open)': 'passed',
        'test 2: runs while the page of test 1 calls, and sees only its own calls': 'passed',
      });
      const message = stripVTControlCharacters(file.message);
      // The error's code is in its name, which Jest's results keep for a file's failure; Vitest's JSON
      // results keep only its message, and Vitest prints the name with the error.
      const named = runner === 'vitest' ? stripVTControlCharacters(run.stdout + run.stderr) : message;
      expect(named).toContain('RUN_ENDED');
      expect(message).toContain(
        'POST https://api.openai.com/v1/chat/completions came from a browser context routed in the test "test 1: its page calls the model after the test ended (the context is left open)", after that test had ended',
      );
      expect(message).not.toContain('test 2:');
    });
  });
});
