import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe('dialects, Bedrock, embeddings and presets from the installed package', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'replays them through the official clients, and fails a parser the dialects break (%s)',
    async (_, runner) => {
      const run = await sharedRun('surface', runner);
      const tests = Object.fromEntries(run.files.flatMap((f) => f.tests.map((t) => [t.title, t])));
      for (const title of [
        'a parallel tool loop (Converse)',
        'a parallel tool loop (ConverseStream)',
        'the official client reads every Chat dialect',
        'embeddings: deterministic unit vectors, and an aimock fixture as an override',
        'Azure OpenAI: a deployment path on any resource',
        'a mid-stream error reaches the agent as the provider error',
      ])
        expect([title, tests[title]?.status, tests[title]?.failureMessages]).toEqual([title, 'passed', []]);

      // The Bedrock contract: the case's own check of the ValidationException held, the one failure is the rule's.
      const dropped =
        tests['an agent that drops a toolResult gets the ValidationException, and the test fails'];
      expect(dropped.status).toBe('failed');
      expect(dropped.failureMessages).toHaveLength(1);
      expect(stripVTControlCharacters(dropped.failureMessages[0])).toContain(
        '400 ValidationException: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_',
      );

      // The naive parser crashes on Azure's preamble: its run errored, which fails the test.
      const naive = tests['a hand-written stream parser that indexes choices[0]'];
      expect(naive.status).toBe('failed');
      const message = stripVTControlCharacters(naive.failureMessages.join('\n'));
      expect(message).toContain("Cannot read properties of undefined (reading 'delta')");
    },
    120_000,
  );
});
