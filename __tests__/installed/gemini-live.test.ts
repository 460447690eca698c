/**
 * Gemini Live from the installed package, under Jest (CommonJS and ESM) and Vitest: @google/genai's
 * `ai.live.connect` with a function call round trip, in TEXT and AUDIO, in process and over the
 * served port. Each "must fail" case fails with jest-understudy's message; the others pass.
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

describe.each(runnersOf(__filename))('Gemini Live through ai.live.connect (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    file = fileOf(await sharedRun('gemini-live', runner), 'gemini-live-client.case.js');
  }, 180_000);

  it('passes the loops: TEXT and AUDIO in process, spoken input, AUDIO over the served port, and an interruption', () => {
    const passing = file.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
      passing.map((t) => [t.title, 'passed', '']),
    );
    expect(passing).toHaveLength(5);
  });

  it('a wrong tool fails the assertion, naming the call made', () => {
    const message = failures(file, 'must fail: the test expects get_time, the model called get_weather');
    expect(message).toContain('Expected: a call to "get_time"');
    expect(message).toContain('0 get_weather {"city": "Paris"}');
  });

  it('an agent that takes a cut socket for the answer ends a failed run', () => {
    const message = failures(
      file,
      'must fail: the socket is cut mid-answer and the agent takes what came for the answer',
    );
    expect(message).toContain('Expected terminal state: "succeeded"');
    expect(message).toContain('Received terminal state: "failed"');
  });

  it("a setup the API refuses fails the test with the contract's message, as the API closes it", () => {
    const message = failures(
      file,
      'must fail: a setup the API refuses (two response modalities) closes the session with its code',
    );
    expect(message).toContain('CONTRACT_BREACH');
    expect(message).toContain('setup.generationConfig.responseModalities');
  });
});
