/** A quarantined test that always passes: its passes in a row decide when it may leave the quarantine. */

const { script, understudy } = require('jest-understudy');
const OpenAI = require('openai');
const { expect, it } = require('@jest/globals');

it('stays calm', async () => {
  understudy.model.use(script().user('calm?').replies('Calm.'));
  const run = await understudy.run(() =>
    new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'calm?' }],
    }),
  );
  expect(run).toHaveFinalMessage('Calm.');
});
