// A file whose first use of the package is pricing (loaded on first call): costOf and priceOf answer.
const { expect, it } = require('./runner-globals.cjs');
const { costOf, priceOf } = require('jest-understudy');

it('prices a model and a call as the first thing the file does', () => {
  const price = priceOf('openai', 'gpt-4o-2024-08-06');
  expect(price).toEqual(expect.objectContaining({ input: expect.any(Number), output: expect.any(Number) }));
  expect(price.input).toBeGreaterThan(0);
  const cost = costOf({ inputTokens: 2_000_000, outputTokens: 1_000_000 }, 'openai', 'gpt-4o');
  expect(cost).toBeCloseTo(2 * price.input + price.output, 10);
  // A table of the user's own: its price wins over the built-in one.
  expect(
    costOf({ inputTokens: 1_000_000, outputTokens: 0 }, 'openai', 'gpt-4o', {
      openai: { 'gpt-4o': { input: 7, output: 9 } },
    }),
  ).toBe(7);
  expect(priceOf('openai', 'no-such-model-anywhere')).toBeUndefined();
});
