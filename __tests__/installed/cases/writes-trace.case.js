// One test that fails while WRITES_FAIL is set (so a trace is written) and one that passes.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

it('answers the question', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const client = new OpenAI();
  const run = await understudy.run(() =>
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(run).toHaveFinalMessage(process.env.WRITES_FAIL ? 'goodbye' : 'hello');
});

it('passes', () => {
  expect(1 + 1).toBe(2);
});
