/**
 * What a model call cost: its usage times the price of its model. A model with no price gives
 * `undefined`, never 0, so a budget is never met by a model nobody priced.
 */
import type { NeutralUsage, ProviderId } from '../conversation';
import { BUILT_IN_PRICES } from './prices';
import type { ModelPrice, PriceTable, TokenRates } from './types';

/** The usage a cost is computed from (the neutral usage, or its counts as a recording keeps them). */
export type CostUsage = Pick<NeutralUsage, 'inputTokens' | 'outputTokens'> &
  Partial<Pick<NeutralUsage, 'cachedInputTokens' | 'reasoningTokens' | 'cacheWriteInputTokens'>>;

const PER_TOKEN = 1 / 1_000_000;

/**
 * The names a model id is looked up by, most specific first: as given, then without what
 * providers add to a family's name (Gemini's `models/`, a Bedrock inference profile's region,
 * a Bedrock `-v1:0` version, a date snapshot, `-latest`).
 */
function namesOf(model: string): string[] {
  const names = [model];
  const add = (name: string) => {
    if (name !== names[names.length - 1]) names.push(name);
  };
  let name = model.replace(/^models\//, '');
  add(name);
  name = name.replace(/^(us|eu|apac|jp|au|ca|us-gov|global)\./, '');
  add(name);
  name = name.replace(/-v\d+(:\d+)?$/, '');
  add(name);
  name = name.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '').replace(/-latest$/, '');
  add(name);
  return names;
}

/** The price table with the user's entries over the built-in ones, per provider and model. */
export function withPrices(user: PriceTable | undefined, base: PriceTable = BUILT_IN_PRICES): PriceTable {
  if (!user) return base;
  const merged: PriceTable = { ...base };
  for (const [provider, models] of Object.entries(user) as Array<[ProviderId, Record<string, ModelPrice>]>)
    merged[provider] = { ...base[provider], ...models };
  return merged;
}

/** The price of `model` of `provider` in `table` (the built-in prices unless given), or undefined. */
export function priceOf(
  provider: ProviderId,
  model: string,
  table: PriceTable = BUILT_IN_PRICES,
): ModelPrice | undefined {
  const models = table[provider];
  if (!models) return undefined;
  for (const name of namesOf(model)) if (Object.hasOwn(models, name)) return models[name];
  return Object.hasOwn(models, '*') ? models['*'] : undefined;
}

/** The rates that apply to a request of `inputTokens`. */
function ratesFor(price: ModelPrice, inputTokens: number): TokenRates {
  const long = price.longContext;
  return long && inputTokens > long.above ? long : price;
}

/**
 * The cost in USD of one call's usage, or undefined when the model has no price. `prices` are
 * the user's (the `prices` option), over the built-in table.
 */
export function costOf(
  usage: CostUsage,
  provider: ProviderId,
  model: string,
  prices?: PriceTable,
): number | undefined {
  const price = priceOf(provider, model, withPrices(prices));
  if (!price) return undefined;
  const rates = ratesFor(price, usage.inputTokens);
  // Cached and written tokens are counted in the input tokens, reasoning in the output tokens.
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const fresh = Math.max(0, usage.inputTokens - cached - written);
  return (
    (fresh * rates.input +
      cached * (rates.cachedInput ?? rates.input) +
      written * (rates.cacheWrite ?? rates.input) +
      (usage.outputTokens - reasoning) * rates.output +
      reasoning * (rates.reasoning ?? rates.output)) *
    PER_TOKEN
  );
}
