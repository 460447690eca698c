/**
 * msw starts on the first request that needs it, from the installed package, under Jest (CommonJS
 * and ESM) and Vitest, with the msw the consumer project installed (msw 3 here; msw 2 in the CI
 * consumer job): a file whose agent calls its provider with fetch is served without starting msw,
 * and its first node:https request starts it and is served. (The first request of a file on every
 * transport, refused or served, is startup.test.ts's.)
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

describe.each(runnersOf(__filename))('msw started on first use (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    file = fileOf(await sharedRun('lazy-msw', runner), 'lazy-msw.case.js');
  }, 240_000);

  const outcome = (title: string) => {
    const test = file.tests.find((t) => t.title === title);
    if (!test) throw new Error(`no test "${title}":\n${file.message}`);
    return [test.status, stripVTControlCharacters(test.failureMessages.join('\n'))];
  };

  it('a provider call over fetch is served without starting msw', () => {
    expect(outcome('a provider call over fetch (the openai SDK) is served, and msw has not started')).toEqual(
      ['passed', ''],
    );
  });

  it("the file's first node:https request starts msw, and is served", () => {
    expect(
      outcome("the file's first node:https request starts msw, and a provider call over it is served"),
    ).toEqual(['passed', '']);
  });

  it('a wrong reply over node:https still fails the assertion, naming what was received', () => {
    const [status, message] = outcome(
      'must fail: a provider call over node:https whose reply the test does not expect',
    );
    expect(status).toBe('failed');
    expect(message).toContain('toHaveFinalMessage');
    expect(message).toContain('Hello over https.');
    expect(message).not.toContain('UNHANDLED_REQUEST');
  });
});
