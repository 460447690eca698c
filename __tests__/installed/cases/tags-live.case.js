/**
 * live(): runs only in live mode with a provider key and never on CI; skipped otherwise, and the
 * reporter says why. LIVE_UPSTREAM is the stand-in provider's base URL.
 * @understudy-tags smoke
 */
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { live } = require('jest-understudy');

live(
  'asks the real model @provider',
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
