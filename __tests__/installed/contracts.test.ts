import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe('request contracts from the installed package', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    "answer an unpaired tool call with OpenAI's 400 and fail the test, naming rule and message (%s)",
    async (_, runner) => {
      const run = await sharedRun('contracts', runner);
      const [dropped, allowed] = run.files[0].tests;
      expect(dropped.title).toBe('an agent that drops one of two parallel tool results');
      expect(dropped.status).toBe('failed');
      // The case's own checks of the 400 held: the one failure is the contract's.
      expect(dropped.failureMessages).toHaveLength(1);
      const message = stripVTControlCharacters(dropped.failureMessages[0]);
      expect(message).toContain(
        'this openai.chat request (POST https://api.openai.com/v1/chat/completions) breaks the provider',
      );
      expect(message).toContain('Rule: tool-results');
      expect(message).toContain('At: messages[1] (message index 1)');
      expect(allowed).toMatchObject({
        title: 'the same agent with the rule turned off for the test',
        status: 'passed',
      });
    },
    90_000,
  );
});
