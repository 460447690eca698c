/**
 * The docblock pragmas, as under Jest: the world and the fixtures of this file, and the
 * provider-key placeholders replay sets (restored after the file).
 *
 * @understudy-world ./pragmas.world.yaml
 * @understudy-fixtures ./fixtures/greet.fixture.json
 */

import { mockTool, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it } from 'vitest';

it('serves the pragma world', async () => {
  const get = mockTool(understudy.world.bind({ actorId: 'agent' }), {
    mode: 'sync',
    operation: { packageId: 'notes', operationId: 'notes.get' },
  });
  expect(get({ id: 'n-1' })).toEqual({ id: 'n-1', text: 'draft' });
});

it('replays the pragma fixtures', async () => {
  const run = await understudy.run(() =>
    new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Greet Ada' }],
    }),
  );
  expect(run).toHaveFinalMessage('Hello, Ada!');
});

it('a note the world does not hold fails as the world says', async () => {
  const get = mockTool(understudy.world.bind({ actorId: 'agent' }), {
    mode: 'sync',
    operation: { packageId: 'notes', operationId: 'notes.get' },
  });
  expect(get({ id: 'n-2' })).toEqual({ id: 'n-2' });
});

it('sets a placeholder provider key', () => {
  expect(process.env.OPENAI_API_KEY).toMatch(/understudy/i);
});
