/**
 * live(): runs only in live mode with a provider key and never on CI; skipped otherwise, with
 * the reason. LIVE_UPSTREAM is the stand-in provider's base URL.
 */

import { live } from 'jest-understudy';
import OpenAI from 'openai';
import { expect, it } from 'vitest';

live(
  'asks the real model',
  async () => {
    const client = new OpenAI({ baseURL: `${process.env.LIVE_UPSTREAM}/openai/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi live' }],
    });
    expect(res.choices[0].message.content).toMatch(/^You said: /);
  },
  10_000,
);

it('a plain test still runs', () => {
  expect(1 + 1).toBe(2);
});
