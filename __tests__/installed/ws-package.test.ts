/**
 * The `ws` package's sockets from the installed package, under Jest (CommonJS and ESM) and Vitest,
 * with the msw the consumer project installed (msw 3 here; msw 2 in the CI consumer job that
 * installs it): a provider host is answered in process, with the package's own connection or an
 * agent, a loopback server of the test is reached as it is, and a host nothing serves fails the
 * test naming its ws(s):// URL. Each "must fail" case fails with jest-understudy's message; the
 * others pass.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

const failures = (file: ChildFile, title: string): string => {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}":\n${file.message}`);
  expect(test.status).toBe('failed');
  return stripVTControlCharacters(test.failureMessages.join('\n'));
};

describe.each(runnersOf(__filename))('the ws package (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    file = fileOf(await sharedRun('ws-package', runner), 'ws-package.case.js');
  }, 180_000);

  it('answers a provider host in process (its own connection, an agent, the openai SDK), and reaches a loopback server', () => {
    const passing = file.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual([
      ['the ws package to a provider host with its own connection is answered in process', 'passed', ''],
      [
        'the ws package to a provider host with an https.Agent of its own is answered in process',
        'passed',
        '',
      ],
      ["the openai SDK's ResponsesWS runs a tool loop over one socket", 'passed', ''],
      ['the ws package to a WebSocket server the test started on loopback reaches it', 'passed', ''],
    ]);
  });

  it("a wrong tool over the openai SDK's ResponsesWS fails the assertion, naming the call made", () => {
    const message = failures(file, "must fail: the openai SDK's ResponsesWS, the test expects get_time");
    expect(message).toContain('toHaveCalledToolSequence');
    expect(message).toContain('expected "get_time", received "get_weather"');
    expect(message).not.toContain('UNHANDLED_REQUEST');
  });

  it.each([
    ['a host nothing serves', 'WebSocket wss://realtime.tracker.invalid/v1/socket'],
    ['a host nothing serves, over plain ws://', 'WebSocket ws://tracker.invalid:8080/socket'],
  ])('a socket to %s fails the test, naming its URL', (what, request) => {
    const message = failures(file, `must fail: the ws package to ${what}`);
    expect(message).toContain(`${request} reached the network layer, but nothing mocks it`);
    expect(message).toContain('UNHANDLED_REQUEST');
  });
});
