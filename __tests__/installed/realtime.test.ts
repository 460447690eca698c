/**
 * OpenAI Realtime from the installed package, under Jest (CommonJS and ESM) and Vitest: the
 * Agents SDK's RealtimeSession (WebSocket transport) with a handoff and a tool, in process and
 * over the served port, and the openai SDK's OpenAIRealtimeWS with a tool loop in audio, spoken
 * input and an interruption. Each "must fail" case fails with jest-understudy's message; the
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

describe.each(runnersOf(__filename))('OpenAI Realtime (%s)', (runner) => {
  let file: ChildFile;

  beforeAll(async () => {
    file = fileOf(await sharedRun('realtime', runner), 'realtime-voice.case.js');
  }, 240_000);

  it('passes the loops: a handoff and a tool (in process, served port), a barge-in, the global WebSocket, a spoken tool loop, spoken input, a handled interruption', () => {
    const passing = file.tests.filter((t) => !t.title.includes('must fail'));
    expect(passing.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
      passing.map((t) => [t.title, 'passed', '']),
    );
    expect(passing).toHaveLength(7);
  });

  it('a wrong tool fails the assertion, naming the calls made', () => {
    const message = failures(
      file,
      'the Agents SDK must fail: the test expects lookup_order, the model called refund_order',
    );
    expect(message).toContain('lookup_order');
    // The model's calls reached the agent over the socket, and it ran them.
    expect(message).toContain('Received 2 calls');
    expect(message).toContain('transfer_to_refunds');
    expect(message).toContain('refund_order');
  });

  it('an interruption the agent does not handle leaves the answer whole, and the test says so', () => {
    const message = failures(
      file,
      'the openai SDK must fail: an interruption not handled (the agent talks over the user)',
    );
    expect(message).toContain('aborted');
    expect(message).toContain('undefined');
  });

  it('a socket cut mid-answer the agent swallows ends a failed run', () => {
    const message = failures(
      file,
      'the openai SDK must fail: a socket cut mid-answer the agent takes for an answer',
    );
    expect(message).toContain('toHaveTerminalState');
    expect(message).toContain('failed');
  });

  it('a session.update the GA API refuses fails the test with the contract breach', () => {
    const message = failures(
      file,
      'the openai SDK must fail: a session.update in the beta shape the GA API refuses',
    );
    expect(message).toContain('CONTRACT_BREACH');
    expect(message).toContain('session.type');
  });
});
