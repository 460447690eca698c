/** A test that fails when SHARD_WEATHER=storm: flaky across runs on the same code. */

import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it } from 'vitest';

it('depends on the weather', async () => {
  understudy.model.use(script().user('weather?').replies('Sunny.'));
  const run = await understudy.run(() =>
    new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'weather?' }],
    }),
  );
  expect(run).toHaveFinalMessage(process.env.SHARD_WEATHER === 'storm' ? 'Stormy.' : 'Sunny.');
});
