// Record mode under Vitest: RECORD_UPSTREAM is the stand-in provider's base URL; replay answers
// from the cassette the record run wrote.

import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it } from 'vitest';

const ask = (text) =>
  understudy.run(async () => {
    const client = new OpenAI({ baseURL: `${process.env.RECORD_UPSTREAM}/openai/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: text }],
    });
    return res.choices[0].message.content;
  });

it('answers a greeting', async () => {
  const run = await ask('Hello there');
  expect(run.output).toBe('You said: Hello there');
});
