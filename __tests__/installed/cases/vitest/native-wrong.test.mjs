/**
 * Wrong agents under the fixtures of `jest-understudy/vitest/test`: each test must fail.
 *
 * @understudy-world ./pragmas.world.yaml
 */

import { mockTool, script } from 'jest-understudy';
import { test } from 'jest-understudy/vitest/test';
import { expect } from 'vitest';
import agents from './native-agents.cjs';

const NOTES_GET = { mode: 'sync', operation: { packageId: 'notes', operationId: 'notes.get' } };
const readNote = () =>
  script().user('read note n-1').callsTool('get_note', { id: 'n-1' }).replies('The note says: draft.');

test('an agent that drops the tool call fails the trajectory', async ({ model, world, run }) => {
  model.use(readNote());
  const getNote = mockTool(world.bind({ actorId: 'agent' }), NOTES_GET);
  const result = await run(() => agents.openaiAgent('read note n-1', getNote, { drop: true }));
  expect(result).toHaveCalledToolSequence([{ name: 'get_note', args: { id: 'n-1' } }]);
});

test('an agent that answers before reading the note fails the final message', async ({
  model,
  world,
  run,
}) => {
  model.use(readNote());
  const getNote = mockTool(world.bind({ actorId: 'agent' }), NOTES_GET);
  const result = await run(() => agents.openaiAgent('read note n-1', getNote, { drop: true }));
  expect(result).toHaveFinalMessage('draft');
});

test('a request no fixture answers, swallowed by the agent, fails the test', async ({ run }) => {
  const result = await run(() => agents.openaiAgent('read note n-1', () => ({})).catch(() => 'swallowed'));
  expect(result.output).toBe('swallowed');
});

test('a fixture an earlier test used does not answer this one', async ({ run }) => {
  await run(() => agents.openaiAgent('read note n-1', () => ({})));
});
