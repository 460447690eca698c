import { beforeAll, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import 'jest-understudy';

let failed = false;
beforeAll(async () => {
  await new OpenAI({ maxRetries: 0 }).chat.completions
    .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'warm up' }] })
    .catch(() => {
      failed = true;
    });
});

it('runs after a hook whose model call matched nothing', () => {
  expect(failed).toBe(true);
});
