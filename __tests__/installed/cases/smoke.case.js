// The smallest consumer test: the preset from the installed tarball serves a script() fixture.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

it('replays a reply', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const client = new OpenAI();
  const run = await understudy.run(() =>
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  );
  expect(run).toHaveFinalMessage('hello');
});
