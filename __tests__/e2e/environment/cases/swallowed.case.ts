import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';

it('an agent that swallows the SDK error', async () => {
  understudy.model.use([
    { match: { userMessage: 'weather in Paris', hasToolResult: false }, response: { content: 'sunny' } },
    { match: { userMessage: 'refund', toolName: 'issue_refund' }, response: { content: 'refunded' } },
  ]);
  let answer = 'fallback';
  try {
    const c = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'weather in Berlin' }],
    });
    answer = c.choices[0].message.content ?? '';
  } catch {
    // a resilient agent keeps going: the environment must still fail this test
  }
  expect(answer).toBe('fallback');
});

it('a later test in the same file is not affected', async () => {
  expect(understudy.model.fixtures).toHaveLength(0);
});
