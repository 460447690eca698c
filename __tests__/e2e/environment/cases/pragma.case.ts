/**
 * @understudy-fixtures ./pragma.fixture.json
 */
import { expect, it } from '@jest/globals';
import OpenAI from 'openai';
import 'jest-understudy';

it('serves fixtures named by the docblock pragma', async () => {
  const c = await new OpenAI().chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'ping' }],
  });
  expect(c.choices[0].message.content).toBe('pong from the pragma file');
  expect(process.env.OPENAI_API_KEY).toBe('sk-understudy-replay');
});
