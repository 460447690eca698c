/**
 * A failing test whose message holds the provider key (from the environment) and a gateway key
 * (only in a request header): the CI surfaces must write neither.
 */
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');
const { GATEWAY_KEY } = require('./ci-surfaces-gateway.cjs');

it('fails with the keys in its message', async () => {
  understudy.model.use(script().user('hello').replies('Hi there.'));
  const client = new OpenAI({ defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY } });
  const run = await understudy.run(() =>
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
  );
  expect(run.terminalState).toBe('succeeded');
  expect(`keys: ${process.env.OPENAI_API_KEY} and ${GATEWAY_KEY}`).toBe('no key here'); // ci-surfaces: failing expect
});
