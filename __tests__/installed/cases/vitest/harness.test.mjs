// Seed 001's "Replay a fixture file in tests", as a Vitest user writes it: a harness created at
// the top level, closed in afterAll, fixtures loaded from a file next to the test with
// new URL(…, import.meta.url). The agent is an AI SDK 7 loop (ESM only) on @ai-sdk/openai.
import { fileURLToPath } from 'node:url';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createAgentHarness, loadFixtures } from 'jest-understudy';
import { afterAll, expect, it } from 'vitest';

const fixturesPath = fileURLToPath(new URL('fixtures/filter-open.fixture.json', import.meta.url));

const items = [
  { id: 1, status: 'open' },
  { id: 2, status: 'open' },
  { id: 3, status: 'closed' },
];

async function filterAgent(input, { runTools = true } = {}) {
  const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
  const { text } = await generateText({
    model: openai.chat('gpt-4o-mini'),
    prompt: input,
    stopWhen: stepCountIs(4),
    tools: {
      applyFilter: tool({
        inputSchema: jsonSchema({ type: 'object', properties: { status: { type: 'string' } } }),
        // A tool without execute ends the loop at the model's request: the call is never run.
        ...(runTools && { execute: async ({ status }) => items.filter((item) => item.status === status) }),
      }),
    },
  });
  return text;
}

const h = createAgentHarness({ agent: (input) => filterAgent(input) });
const lazy = createAgentHarness({ agent: (input) => filterAgent(input, { runTools: false }) });

afterAll(async () => {
  await h.close();
  await lazy.close();
});

it('replays a committed exchange', async () => {
  const run = await h.run({ input: 'Filter open items', fixtures: loadFixtures(fixturesPath) });
  expect(run).toHaveCalledTool('applyFilter', { status: 'open' });
  expect(run).toHaveFinalMessage('Found 2');
});

it('fails an agent that never runs the tool it was asked for', async () => {
  const run = await lazy.run({ input: 'Filter open items', fixtures: loadFixtures(fixturesPath) });
  expect(run).toHaveCalledTool('applyFilter', { status: 'open' });
});
