/**
 * WebSockets from the installed package, under Jest (CommonJS and ESM) and Vitest: the Responses
 * API's WebSocket mode through the Agents SDK (Node's global WebSocket) and the openai SDK's
 * ResponsesWS (the `ws` package), in process and over the served port; a socket to anything a
 * socket protocol does not serve is refused naming its URL. Each "must fail" case fails with
 * jest-understudy's message; the others pass.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

describe.each(runnersOf(__filename))('WebSockets (%s)', (runner) => {
  let responses: ChildFile;
  let refused: ChildFile;
  let browser: ChildFile;
  let project: string;

  beforeAll(async () => {
    const run = await sharedRun('sockets-responses', runner);
    responses = fileOf(run, 'sockets-responses.case.js');
    project = run.project;
    refused = fileOf(await sharedRun('sockets-refused', runner), 'sockets-refused.case.js');
    browser = fileOf(await sharedRun('sockets-browser', runner), 'sockets-browser.case.js');
  }, 240_000);

  it('Responses WebSocket mode: the tool loops pass, in process and over the served port, and a socket left open ends with the file', () => {
    const passing = responses.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
      passing.map((t) => [t.title, 'passed', '']),
    );
    expect(passing).toHaveLength(5);
    // The socket the last test left open was closed by the runtime when the file ended.
    expect(readFileSync(join(project, 'left-open.close'), 'utf8')).toBe('1001');
  });

  it.each(['the Agents SDK', "the openai SDK's ResponsesWS"])(
    '%s: a wrong tool fails the assertion',
    (name) => {
      const message = failures(
        responses,
        `${name} must fail: the test expects get_time first, the model called get_weather`,
      );
      expect(message).toContain('toHaveCalledToolSequence');
      // The model's call reached the agent over the socket: the sequence differs, nothing was refused.
      expect(message).toContain('expected "get_time", received "get_weather"');
      expect(message).not.toContain('UNHANDLED_REQUEST');
    },
  );

  it('an agent that ignores the tool results fails the test', () => {
    const message = failures(
      responses,
      'must fail: the agent ignores the tool results and answers on its own',
    );
    expect(message).toContain('get_weather');
    expect(message).toContain('the agent never ran it');
  });

  it('a dropped socket the agent swallows fails the test', () => {
    const message = failures(responses, 'must fail: a dropped socket the agent swallows');
    expect(message).toContain('toHaveTerminalState');
    expect(message).toContain('failed');
  });

  it('a socket to a path or host nothing serves is refused, naming its URL', () => {
    expect(refused.tests.map((t) => [t.title, t.status])).toEqual([
      ['must fail: the ws package to a provider path no socket protocol serves', 'failed'],
      ["must fail: Node's global WebSocket to a host nothing serves", 'failed'],
    ]);
    expect(
      failures(refused, 'must fail: the ws package to a provider path no socket protocol serves'),
    ).toContain('WebSocket wss://api.openai.com/v1/chat/completions');
    expect(failures(refused, "must fail: Node's global WebSocket to a host nothing serves")).toContain(
      'WebSocket wss://tracker.invalid/socket',
    );
  });

  it('a page routed by understudy.browser.route runs its tool loop over the socket, answered in the route', () => {
    const loop = browser.tests.find((t) => !t.title.includes('must fail'));
    expect([loop?.status, loop?.failureMessages.join('\n')]).toEqual(['passed', '']);
    const wrong = failures(browser, 'must fail: the page asks for the wrong city');
    expect(wrong).toContain('Lyon');
    expect(wrong).toContain('Paris');
  });
});
