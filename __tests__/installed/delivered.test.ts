/**
 * What was delivered, not what was scripted, from the installed package under Jest (CommonJS and
 * ESM) and Vitest: a reply cut short on the wire, or given up by the agent, is the run's evidence
 * as far as it reached the agent, on every protocol through its official client
 * (delivered-inprocess.case.js), and paced streams under the runner's fake timers
 * (delivered-timers.case.js). Each "no false green" test asserts what the scripted reply would
 * have let pass, and must fail.
 */
import { describe, expect, it } from '@jest/globals';
import { expectOnlyFalseGreensFailed, failureOf } from '../support/delivered';
import { fileOf } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const PROTOCOLS = [
  'openai.chat',
  'openai.responses',
  'anthropic.messages',
  'gemini.generateContent',
  'bedrock.converse',
];

describe('what was delivered, in process', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'every protocol, cut on the wire or given up by the agent, and paced under fake timers (%s)',
    async (_, runner) => {
      const run = await sharedRun('delivered', runner);
      const timers = fileOf(run, 'delivered-timers.case.js');
      expect(timers.tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
        timers.tests.map((t) => [t.title, 'passed', '']),
      );
      expect(timers.tests).toHaveLength(4);
      const file = fileOf(run, 'delivered-inprocess.case.js');
      const falseGreens = expectOnlyFalseGreensFailed(file);
      expect(falseGreens).toHaveLength(PROTOCOLS.length * 3);
      expect(file.tests.length).toBeGreaterThan(PROTOCOLS.length * 10);
      for (const protocol of PROTOCOLS) {
        const title = (rest: string) => `${protocol} no false green: ${rest}`;
        const final = failureOf(file, title('toHaveFinalMessage on the scripted text of a truncated reply'));
        expect(final).toContain('toHaveFinalMessage');
        const args = failureOf(
          file,
          title('toHaveRequestedTool with the scripted arguments of a call cut mid-way'),
        );
        expect(args).toContain('toHaveRequestedTool');
        expect(failureOf(file, title('a run whose agent swallowed a cut stream ends succeeded'))).toContain(
          'failed',
        );
      }
    },
    240_000,
  );
});
