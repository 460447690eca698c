/**
 * @jest-environment-options {"understudy": {"contracts": {"tool-results": false}}}
 */
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';

it('docblock: one file turns the rule off for itself', async () => {
  understudy.model.use([{ match: {}, response: { content: 'answered anyway' } }]);
  const c = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'call_nowhere', content: 'result' },
    ],
  });
  expect(c.choices[0].message.content).toBe('answered anyway');
});
