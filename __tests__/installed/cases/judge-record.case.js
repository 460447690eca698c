// A support agent and a judge of its answers, recorded against a stand-in provider (JUDGE_UPSTREAM,
// an OpenAI base URL the config intercepts) and replayed with it gone. JUDGE_RUBRIC changes the
// rubric after the recording (a stale verdict), JUDGE_MODEL the judge model and JUDGE_TEXT a judged
// text (stale too); JUDGE_FLIP asserts the opposite of a recorded "fail" verdict (the test must fail).
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

async function agent(question) {
  const client = new OpenAI({ baseURL: `${process.env.JUDGE_UPSTREAM}/openai/v1`, maxRetries: 0 });
  const answer = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'You are a support agent.' },
      { role: 'user', content: question },
    ],
  });
  return answer.choices[0].message.content;
}

it('a polite answer satisfies the judge', async () => {
  const run = await understudy.run(() => agent('Thanks for the refund!'));
  const judge = process.env.JUDGE_MODEL ? { model: process.env.JUDGE_MODEL } : undefined;
  await expect(run).toSatisfyJudge(process.env.JUDGE_RUBRIC || 'The answer must mention "thanks"', judge);
  // The judge's call is not one of the agent's model calls.
  expect(run.modelCalls).toHaveLength(1);
  expect(run).toHaveStepCount(1);
  const judged = understudy.model.calls.filter((c) => c.judge);
  expect(judged).toHaveLength(1);
  expect(judged[0].response.content).toContain('"verdict":"pass"');
  // gpt-4o, 31 input and 9 output tokens: $0.0001675.
  expect(run).toHaveCostBelow(0.001);
  expect(run).not.toHaveCostBelow(0.0001);
});

it('judges any text', async () => {
  const text = process.env.JUDGE_TEXT || 'Your refund is on its way.';
  if (process.env.JUDGE_FLIP) await expect(text).toSatisfyJudge('It must mention "invoice"');
  else await expect(text).not.toSatisfyJudge('It must mention "invoice"');
});
