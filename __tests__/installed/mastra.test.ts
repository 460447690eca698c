/**
 * Mastra from the packed tarball, under Jest (--experimental-vm-modules: an ES module case, and a
 * CommonJS one that loads Mastra's CommonJS build) and under the Vitest plugin: a Mastra Agent with
 * createTool tools runs whole loops with agent.generate and agent.stream on models named by Mastra's
 * router (OpenAI Responses, Anthropic, Gemini) and on an AI SDK model (OpenAI Chat), its tools
 * served by the world through mockTool in process and over HTTP from a Mastra app in a child process
 * on the served port; each wrongly wired agent fails with jest-understudy's message, the same under
 * both runners.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import type { ChildFile, ChildRun } from '../support/child-jest';
import { fileOf, runInstalled, statuses } from '../support/installed';
import { runInstalledVitest } from '../support/installed-vitest';
import { runnersOf } from '../support/runner-tier';

const MODELS = [
  'openai (router, Responses API)',
  'openai (AI SDK provider, Chat Completions)',
  'anthropic (router, Messages API)',
  'google (router, Gemini API)',
];

const PASSING = [
  ...MODELS.flatMap((model) =>
    ['agent.generate', 'agent.stream'].map((method) => `${model}, ${method}: refunds the order`),
  ),
  ...['agent.generate', 'agent.stream'].map(
    (method) => `fake timers that leave setImmediate real, ${method}: refunds the order`,
  ),
  // A Mastra app in a child process, on the served port: its router sends Google models to Google's own URL.
  ...MODELS.filter((model) => !model.startsWith('google')).flatMap((model) =>
    ['agent.generate', 'agent.stream'].map(
      (method) => `${model}, ${method} in a child process over the served port: refunds the order`,
    ),
  ),
];

/** Each wrong agent's test, and what its failure must say: the call it got wrong, in our words. */
const WRONG: Record<string, string[]> = {
  'wrong tool: tools registered under camelCase keys offer the model other names': [
    'UnderstudyError [CONTRACT_BREACH]',
    'Rule: offered-tools',
    'the fixture calls "lookup_order", but the request offers only "lookupOrder", "refundOrder": a model cannot call a tool it was not given. Did you mean "lookupOrder"?',
  ],
  'wrong args: a schema that lower-cases the id refunds an order that does not exist': [
    'toHaveCalledToolSequence',
    'first divergence at step 1: expected "refund_order" with {"id": "A-1"} ending ok, received "refund_order" with {"id": "A-1"} ending error NOT_FOUND (operation orders/orders.refund #2)',
  ],
  'never calls the tool: a refund that waits for an approval is requested but never run': [
    'toHaveCalledToolSequence',
    'No call to "refund_order" ran: the model requested it, but the agent never ran it',
    'toolCalls[1] refund_order {"id": "A-1"}',
  ],
  'stops early: a one-step limit ends the loop after the lookup': [
    'toHaveCalledToolSequence',
    'No call is named "refund_order": the run offered it to the model, which never asked for it.',
  ],
  'stops early, streamed: a one-step limit ends the loop after the lookup': [
    'toHaveCalledToolSequence',
    'No call is named "refund_order": the run offered it to the model, which never asked for it.',
  ],
};

function expectResults(run: ChildRun, file: ChildFile) {
  expect(Object.fromEntries(file.tests.map((t) => [t.title, t.status]))).toEqual({
    ...Object.fromEntries(PASSING.map((title) => [title, 'passed'])),
    ...Object.fromEntries(Object.keys(WRONG).map((title) => [title, 'failed'])),
  });
  expect(run.code).toBe(1);
  for (const [title, says] of Object.entries(WRONG)) {
    const test = file.tests.find((t) => t.title === title);
    const message = stripVTControlCharacters(test?.failureMessages[0] ?? '');
    for (const part of says) expect(message).toContain(part);
  }
}

// @mastra/core 1 needs Node >= 22.13: the Node 20 CI job leaves this file out (.ci/consumer.sh).
describe('Mastra agents', () => {
  const run = {
    // Its CommonJS build requires ES-module-only packages, which Jest loads only with the flag: from an
    // ES module test file, or from a CommonJS one through Jest's require(esm) (Node >= 24.9).
    'jest-esm': async () => {
      const run = await runInstalled({ cases: ['mastra.case.mjs', 'mastra-cjs.case.js'], esm: true });
      expectResults(run, fileOf(run, 'mastra.case.mjs'));
      expect(statuses(fileOf(run, 'mastra-cjs.case.js'))).toEqual({
        "loads Mastra's CommonJS build": 'passed',
        'agent.generate runs the tool loop': 'passed',
        'agent.stream runs the tool loop': 'passed',
      });
    },
    vitest: async () => {
      const run = await runInstalledVitest({ cases: ['mastra.test.mjs'] });
      const file = run.files.find((f) => f.name.endsWith('/mastra.test.mjs'));
      if (!file) throw new Error(`no results:\n${run.stdout}\n${run.stderr}`);
      expect(file.message).toBe('');
      expectResults(run, file);
    },
  };

  it.each(runnersOf(__filename, ['jest-esm', 'vitest']) as Array<keyof typeof run>)(
    'run whole loops, and the wrong ones fail (%s)',
    (runner) => run[runner](),
    180_000,
  );
});
