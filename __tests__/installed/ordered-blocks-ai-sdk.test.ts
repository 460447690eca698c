/**
 * Replies whose text comes after a tool call, through the AI SDK (Anthropic, OpenAI Responses,
 * Google; `generateText` and `streamText`) from the installed package: the order reaches the SDK in
 * a whole loop. The AI SDK ships ES modules only and needs Node >= 22: Jest ESM and Vitest run it,
 * Jest CommonJS cannot require it, and the Node 20 job leaves this driver out (.ci/consumer.sh).
 */
import { describe, expect, it } from '@jest/globals';
import { fileOf } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

describe.each(runnersOf(__filename, ['jest-esm', 'vitest']))(
  'ordered blocks through the AI SDK (%s)',
  (runner) => {
    it('the AI SDK (Anthropic, OpenAI Responses, Google; generateText and streamText) keeps the order in a whole loop', async () => {
      const file = fileOf(await sharedRun('ordered-blocks-ai-sdk', runner), 'ordered-blocks-ai-sdk.case.js');
      expect(file.tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
        file.tests.map((t) => [t.title, 'passed', '']),
      );
      expect(file.tests).toHaveLength(6);
    }, 180_000);
  },
);
