/**
 * What was delivered, over the served port, from the installed package: an agent in another
 * process (each protocol's official client) is cut short on the wire or gives up mid-stream,
 * and the run holds what that process received (delivered-served.case.js), under Jest (CommonJS
 * and ESM) and Vitest.
 */
import { describe, expect, it } from '@jest/globals';
import { expectOnlyFalseGreensFailed, failureOf } from '../support/delivered';
import { fileOf } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const PROTOCOLS = ['openai.chat', 'openai.responses', 'anthropic.messages', 'gemini.generateContent'];

describe('what was delivered, over the served port', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'a client in another process, cut on the wire or giving up (%s)',
    async (_, runner) => {
      const run = await sharedRun('delivered-served', runner);
      const file = fileOf(run, 'delivered-served.case.js');
      const falseGreens = expectOnlyFalseGreensFailed(file);
      expect(falseGreens).toHaveLength(PROTOCOLS.length * 2);
      // Every cut on every protocol, less the loop @google/genai leaves with its connection open
      // and, before @google/genai 3, the stop between two calls (see the case file).
      for (const protocol of PROTOCOLS) {
        const count = file.tests.filter((t) => t.fullName.startsWith(`${protocol} `)).length;
        if (protocol.startsWith('gemini')) expect([6, 7]).toContain(count);
        else expect(count).toBe(8);
      }
      for (const protocol of PROTOCOLS) {
        expect(
          failureOf(
            file,
            `${protocol} no false green: toHaveFinalMessage on the scripted text of a reply the child gave up on`,
          ),
        ).toContain('toHaveFinalMessage');
        expect(
          failureOf(
            file,
            `${protocol} no false green: toHaveRequestedTool with the scripted arguments of a call the child did not get whole`,
          ),
        ).toContain('toHaveRequestedTool');
      }
    },
    300_000,
  );
});
