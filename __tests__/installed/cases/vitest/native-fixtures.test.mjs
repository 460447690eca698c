/**
 * `test` from `jest-understudy/vitest/test`: the fixtures `model`, `world` and `run` are the test
 * file's own session, for agents on real SDKs running whole tool loops.
 *
 * @understudy-world ./pragmas.world.yaml
 */

import { mockTool, script, understudy } from 'jest-understudy';
import { test, understudyFixtures } from 'jest-understudy/vitest/test';
import { describe, expect, test as vitestTest } from 'vitest';
import agents from './native-agents.cjs';

const NOTES_GET = { mode: 'sync', operation: { packageId: 'notes', operationId: 'notes.get' } };
const readNote = () =>
  script().user('read note n-1').callsTool('get_note', { id: 'n-1' }).replies('The note says: draft.');

describe('the fixtures', () => {
  test('are what the understudy handle gives', ({ model, world }) => {
    expect(model).toBe(understudy.model);
    expect(world.state).toEqual(understudy.world.state);
  });

  test('an OpenAI tool loop: the model answers, the world serves the tool, run records it', async ({
    model,
    world,
    run,
  }) => {
    model.use(readNote());
    const getNote = mockTool(world.bind({ actorId: 'agent' }), NOTES_GET);
    const result = await run(() => agents.openaiAgent('read note n-1', getNote));
    expect(result).toHaveCalledTool('get_note', { id: 'n-1' });
    expect(result).toHaveFinalMessage('draft');
    expect(model.calls).toHaveLength(2);
    expect(world.operations.map((op) => op.operationId)).toEqual(['notes.get']);
  });

  test('an OpenAI loop streamed', async ({ model, world, run }) => {
    model.use(readNote());
    const getNote = mockTool(world.bind({ actorId: 'agent' }), NOTES_GET);
    const result = await run(() => agents.openaiAgent('read note n-1', getNote, { stream: true }));
    expect(result).toHaveCalledToolSequence([{ name: 'get_note', args: { id: 'n-1' } }]);
    expect(result).toHaveFinalMessage('draft');
  });

  test('an Anthropic loop streamed', async ({ model, world, run }) => {
    model.use(readNote());
    const getNote = mockTool(world.bind({ actorId: 'agent' }), NOTES_GET);
    const result = await run(() => agents.anthropicAgent('read note n-1', getNote));
    expect(result).toHaveCalledTool('get_note', { id: 'n-1' });
    expect(result).toHaveFinalMessage('draft');
  });

  test('what a test used holds for that test only', ({ model }) => {
    expect(model.calls).toEqual([]);
  });
});

// A test.extend of your own on top: a fixture that depends on `model`.
const greeted = vitestTest.extend(understudyFixtures).extend({
  greeting: async ({ model }, use) => {
    model.use(script().user('hi').replies('Hello from the fixture!'));
    await use('hi');
  },
});

greeted('composes with a test.extend of your own', async ({ greeting, run }) => {
  const result = await run(() => agents.openaiAgent(greeting, () => ({})));
  expect(result).toHaveFinalMessage('Hello from the fixture!');
});
