/**
 * @understudy-fixtures judge-verdicts.fixture.json
 */
// A judge's call with no recorded verdict in replay: it fails, whichever way it is asserted, and
// says how to record it. The agent's catch-all fixture never answers the judge.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const client = () => new OpenAI({ maxRetries: 0 });

it('a judge fixture written by hand answers the judge', async () => {
  const run = await understudy.run(async () => {
    const answer = await client().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    return answer.choices[0].message.content;
  });
  expect(run.finalMessage).toBe('Thank you for writing, we are on it.');
  await expect(run).toSatisfyJudge('The answer must be polite');
});

it('has no recorded verdict', async () => {
  await expect('Your refund is on its way.').toSatisfyJudge('It must mention the refund');
});

it('has no recorded verdict under .not either', async () => {
  await expect('Your refund is on its way.').not.toSatisfyJudge('It must mention the refund');
});
