// Fails when TRUTHFUL_FAIL is set; its fixture file is edited between two runs of the truthful
// flake history test.
const { join } = require('node:path');
const OpenAI = require('openai');
const { expect, it } = require('./runner-globals.cjs');
const { loadFixtures, understudy } = require('jest-understudy');

it('answers from its fixture', async () => {
  understudy.model.use(loadFixtures(join(__dirname, 'truthful-flake.fixture.json')));
  const run = await understudy.run(async () => {
    const completion = await new OpenAI().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
    });
    return completion.choices[0].message.content;
  });
  expect(run.output).toContain('hello');
  expect(process.env.TRUTHFUL_FAIL).toBeUndefined();
});
