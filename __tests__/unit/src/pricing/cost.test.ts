import { describe, expect, it } from '@jest/globals';
import { BUILT_IN_PRICES, costOf, priceOf, withPrices } from '../../../../src/pricing';

const usage = (inputTokens: number, outputTokens: number, more = {}) => ({
  inputTokens,
  outputTokens,
  ...more,
});

describe('costOf', () => {
  it('prices input and output tokens per million', () => {
    // gpt-4o: $2.50 in, $10 out.
    expect(costOf(usage(1_000_000, 0), 'openai', 'gpt-4o')).toBeCloseTo(2.5, 10);
    expect(costOf(usage(2000, 500), 'openai', 'gpt-4o')).toBeCloseTo(0.005 + 0.005, 10);
  });

  it('is undefined for a model nobody priced, never 0', () => {
    expect(costOf(usage(100, 100), 'openai', 'gpt-nonexistent')).toBeUndefined();
    expect(costOf(usage(0, 0), 'ollama', 'llama3.2')).toBeUndefined();
    expect(costOf(usage(100, 100), 'openai', 'gpt-4o-mimi')).toBeUndefined();
  });

  it('bills cached and cache-written input tokens at their own rates, out of the input tokens', () => {
    // claude-sonnet-4-5: $3 in, $0.30 cache read, $3.75 cache write, $15 out.
    const cost = costOf(
      usage(100_000, 0, { cachedInputTokens: 60_000, cacheWriteInputTokens: 10_000 }),
      'anthropic',
      'claude-sonnet-4-5',
    );
    expect(cost).toBeCloseTo((30_000 * 3 + 60_000 * 0.3 + 10_000 * 3.75) / 1e6, 10);
  });

  it('bills reasoning at the output rate unless a reasoning rate is set', () => {
    expect(costOf(usage(0, 1_000_000, { reasoningTokens: 800_000 }), 'openai', 'o4-mini')).toBeCloseTo(
      4.4,
      10,
    );
    const prices = { gemini: { 'g-think': { input: 0, output: 1, reasoning: 3 } } };
    expect(
      costOf(usage(0, 1_000_000, { reasoningTokens: 500_000 }), 'gemini', 'g-think', prices),
    ).toBeCloseTo(0.5 + 1.5, 10);
  });

  it('bills a prompt over a long-context threshold at the tier rates, whole', () => {
    // gemini-2.5-pro: $1.25/$10 up to 200K input tokens, $2.50/$15 above.
    expect(costOf(usage(200_000, 0), 'gemini', 'gemini-2.5-pro')).toBeCloseTo(0.25, 10);
    expect(costOf(usage(200_001, 1_000_000), 'gemini', 'gemini-2.5-pro')).toBeCloseTo(
      (200_001 * 2.5) / 1e6 + 15,
      10,
    );
  });

  it('finds a family price for dated snapshots, Gemini model paths and Bedrock inference profiles', () => {
    expect(priceOf('openai', 'gpt-4o-2024-08-06')).toBe(BUILT_IN_PRICES.openai?.['gpt-4o']);
    expect(priceOf('openai', 'gpt-4o-2024-05-13')?.input).toBe(5);
    expect(priceOf('anthropic', 'claude-sonnet-4-5-20250929')).toBe(
      BUILT_IN_PRICES.anthropic?.['claude-sonnet-4-5'],
    );
    expect(priceOf('gemini', 'models/gemini-2.5-flash')).toBe(BUILT_IN_PRICES.gemini?.['gemini-2.5-flash']);
    expect(priceOf('bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      BUILT_IN_PRICES.bedrock?.['anthropic.claude-sonnet-4-5'],
    );
    // A prefix is not a family: gpt-4o-mini is not gpt-4o, nor the other way round.
    expect(priceOf('openai', 'gpt-4o-mini')?.input).toBe(0.15);
    expect(priceOf('openai', 'gpt-4o-mini-tts')).toBeUndefined();
  });

  it("lets the user's prices add models, replace built-in ones and price a provider's other models with *", () => {
    const prices = {
      openai: { 'gpt-4o': { input: 1, output: 1 }, 'ft:gpt-4o:acme': { input: 3.75, output: 15 } },
      ollama: { '*': { input: 0, output: 0 } },
    };
    expect(costOf(usage(1_000_000, 0), 'openai', 'gpt-4o', prices)).toBe(1);
    expect(costOf(usage(1_000_000, 0), 'openai', 'gpt-4o-2024-08-06', prices)).toBe(1);
    expect(costOf(usage(1_000_000, 0), 'openai', 'ft:gpt-4o:acme', prices)).toBe(3.75);
    expect(costOf(usage(1_000_000, 0), 'openai', 'gpt-4.1', prices)).toBe(2);
    expect(costOf(usage(5, 5), 'ollama', 'llama3.2', prices)).toBe(0);
    expect(withPrices(undefined)).toBe(BUILT_IN_PRICES);
    expect(BUILT_IN_PRICES.openai?.['gpt-4o']?.input).toBe(2.5);
  });

  it('prices every built-in entry with finite, non-negative rates', () => {
    for (const models of Object.values(BUILT_IN_PRICES))
      for (const price of Object.values(models ?? {}))
        for (const rate of [price.input, price.output, price.cachedInput ?? 0, price.cacheWrite ?? 0])
          expect(Number.isFinite(rate) && rate >= 0).toBe(true);
  });
});
