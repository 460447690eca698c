/**
 * understudy.browser.route from the installed package, under Jest (CommonJS and ESM) and Vitest, in
 * headless Chromium inside a
 * network namespace with only loopback: a page's provider and world traffic is served, a host
 * nothing serves and a loopback port no server of the test listens on fail the test naming them,
 * and only what network.allow names leaves.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, runInstalled } from '../support/installed';
import { type Counts, type IsolatedNetwork, isolatedNetwork } from '../support/netns';
import { runnersOf } from '../support/runner-tier';

const OPTION = 'testEnvironmentOptions.understudy.network.allow';

describe.each(runnersOf(__filename))(
  'a Playwright page routed into the file from the installed package (%s)',
  (runner) => {
    let file: ChildFile;
    let counts: Counts;
    let lookups: ReturnType<IsolatedNetwork['lookups']>;
    beforeAll(async () => {
      const network = isolatedNetwork(['telemetry.invalid', 'allowed.invalid']);
      const run = await runInstalled({
        ...RUNNERS[runner],
        cases: ['browser.case.js'],
        understudy: { traces: 'off', network: { allow: ['allowed.invalid:443'] } },
        prefix: network.prefix,
      });
      file = fileOf(run, 'browser.case.js');
      counts = network.counts();
      lookups = network.lookups();
    }, 120_000);

    const test = (title: string) => {
      const found = file.tests.find((t) => t.title === title);
      if (!found) throw new Error(`no test titled ${title}:\n${file.message}`);
      return {
        status: found.status,
        messages: found.failureMessages.map((m) => stripVTControlCharacters(m)),
      };
    };
    const failsWith = (title: string, ...parts: string[]) => {
      const t = test(title);
      expect(t.status).toBe('failed');
      expect(t.messages).toHaveLength(1);
      for (const part of parts) expect(t.messages[0]).toContain(part);
    };

    it('serves the chat page: the trajectory and the world state are asserted in Chromium', () => {
      expect(test('a chat page in Chromium: its script calls the model and the world API')).toEqual({
        status: 'passed',
        messages: [],
      });
    });

    it("fails when the page's agent calls the wrong tool, naming the tool it expected", () => {
      failsWith("the page's agent calls the wrong tool", 'add_note', 'list_notes');
    });

    it('fails a page request to a host nothing serves, naming it, the transport and network.allow', () => {
      failsWith(
        'a page that calls a host nothing serves: telemetry.invalid',
        'POST https://telemetry.invalid/collect reached the network layer, but nothing mocks it (transport: browser, host: telemetry.invalid, port: 443).',
        `To let it through untouched, add "telemetry.invalid:443" to ${OPTION}.`,
      );
    });

    it('fails a page request to a loopback port no server of the test listens on', () => {
      failsWith(
        'a page that calls a loopback port no server of the test listens on',
        '(transport: browser, host: 127.0.0.1, port: ',
        'No server of this test process listens on port',
      );
    });

    it('fails a page whose model request matches no fixture, as an in-process call would', () => {
      failsWith('a page whose model request matches no fixture', 'something else entirely');
    });

    it('lets what network.allow names leave, and nothing else', () => {
      expect(test('network.allow lets allowed.invalid:443 through from the page')).toEqual({
        status: 'passed',
        messages: [],
      });
      // The traps count every connection made in the namespace: only the allowed one came.
      expect(counts.control).toEqual(expect.objectContaining({ 'tcp:5432': expect.any(Number) }));
      expect(Object.keys(counts.test ?? {}).filter((k) => k.startsWith('tcp:'))).toEqual(['tcp:443']);
      // Chromium's own services look up Google hosts (not page traffic, which route sees): the refused
      // host was never looked up, and the allowed one came from /etc/hosts.
      expect(lookups.control).toContain('dns.invalid');
      expect(lookups.test ?? []).not.toContain('telemetry.invalid');
      expect((lookups.test ?? []).filter((name) => !/(^|\.)google(apis)?\.com$/.test(name))).toEqual([]);
    });
  },
);
