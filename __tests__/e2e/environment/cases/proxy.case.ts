import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';

it('intercepts a configured base URL', async () => {
  understudy.model.use([{ match: { userMessage: 'via proxy' }, response: { content: 'proxied' } }]);
  const client = new OpenAI({ baseURL: 'https://llm-proxy.internal.test/openai/v1' });
  const c = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'via proxy' }],
  });
  expect(c.choices[0].message.content).toBe('proxied');
  expect(understudy.model.calls[0].url).toBe('https://llm-proxy.internal.test/openai/v1/chat/completions');
});
