/**
 * The real agent frameworks under the Vitest plugin from the packed tarball: the OpenAI Agents SDK,
 * AI SDK 7 and LangGraph each drive a whole tool loop (cases/vitest/frameworks.test.mjs), and each
 * one's wrongly wired agent fails its trajectory matchers.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { runInstalledVitest } from '../support/installed-vitest';

// @openai/agents 0.15+ (on openai 7) and @langchain/openai 1 need Node >= 22: the Node 20 CI job
// (Vitest 4.1, openai 6) leaves this file out (.ci/consumer.sh) rather than skip it.
describe('real agent frameworks under Vitest', () => {
  it('drive whole tool loops, and their wrongly wired agents fail the trajectory', async () => {
    const run = await runInstalledVitest({ cases: ['frameworks.test.mjs'] });
    const file = run.files.find((f) => f.name.endsWith('/frameworks.test.mjs'));
    if (!file) throw new Error(`no results:\n${run.stdout}\n${run.stderr}`);
    expect(Object.fromEntries(file.tests.map((t) => [t.title, t.status]))).toEqual({
      'agents sdk (plain): runs the whole refund loop': 'passed',
      'agents sdk (streamed): runs the whole refund loop': 'passed',
      'agents sdk: an agent that stops on its first tool fails the trajectory': 'failed',
      'ai sdk 7 (plain): runs the whole refund loop': 'passed',
      'ai sdk 7 (streamed): runs the whole refund loop': 'passed',
      'ai sdk 7: an agent whose step limit ends the loop after its first tool fails the trajectory': 'failed',
      'langgraph (plain): runs the whole refund loop': 'passed',
      'langgraph (streamed): runs the whole refund loop': 'passed',
      'langgraph: a graph whose tools do not lead back to the model fails the trajectory': 'failed',
    });
    expect(file.message).toBe('');
    expect(run.code).toBe(1);
    // Each wrong agent fails on the call it never made, not on something incidental.
    for (const test of file.tests.filter((t) => t.status === 'failed')) {
      const said = stripVTControlCharacters(test.failureMessages[0] ?? '');
      expect(said).toContain('toHaveCalledToolSequence');
      expect(said).toContain('refund_order');
    }
  }, 180_000);
});
