/**
 * The network is contained before a test file's first line runs, however the start-up of a worker
 * is arranged: the first request of a file (a fetch, node:https, the undici package, or a fetch
 * made while the file loads) to a host nothing serves fails the file's test naming the host, even
 * when the agent swallows the error. Under Jest (CommonJS and ESM) and Vitest, each file alone.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, type Runner } from '../support/installed';
import { sharedRun } from '../support/shared-runs';

const CASES = [
  ['startup-first-fetch.case.js', 'first-fetch.invalid'],
  ['startup-first-http.case.js', 'first-http.invalid'],
  ['startup-first-undici.case.js', 'first-undici.invalid'],
  ['startup-first-top-level.case.js', 'first-top-level.invalid'],
] as const;

describe.each(Object.keys(RUNNERS) as Runner[])('the first request of a test file (%s)', (runner) => {
  const files = new Map<string, ChildFile>();

  beforeAll(async () => {
    const run = await sharedRun('startup-first-request', runner);
    for (const [name] of CASES) files.set(name, fileOf(run, name));
  }, 240_000);

  it.each(CASES)('%s fails its one test, naming %s, though the agent swallowed the error', (name, host) => {
    const file = files.get(name)!;
    expect(file.tests).toHaveLength(1);
    const [test] = file.tests;
    expect(test.status).toBe('failed');
    const message = stripVTControlCharacters(test.failureMessages.join('\n'));
    expect(message).toContain('UNHANDLED_REQUEST');
    expect(message).toContain(`host: ${host}`);
    expect(message).toContain('nothing mocks it');
  });
});
