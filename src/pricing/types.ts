/** The shape of a price table: the built-in one and the user's `prices` option. */
import type { ProviderId } from '../conversation';

/** Rates in USD per million tokens. */
export interface TokenRates {
  /** Input tokens neither read from nor written to the prompt cache. */
  input: number;
  /** Output tokens, reasoning included unless `reasoning` prices it apart. */
  output: number;
  /** Input tokens read from the prompt cache (default: the `input` rate). */
  cachedInput?: number;
  /** Input tokens written to the prompt cache, Anthropic's and Bedrock's (default: the `input` rate). */
  cacheWrite?: number;
  /** Reasoning (thinking) tokens, where a provider bills them apart from the answer (default: the `output` rate). */
  reasoning?: number;
}

export interface ModelPrice extends TokenRates {
  /** A long-prompt tier: a request whose input tokens are more than `above` is billed at these rates, whole. */
  longContext?: TokenRates & { above: number };
}

/**
 * Provider → model id → price. A model id `*` prices every model of that provider the table
 * has no entry for (a local gateway's models, at `{ input: 0, output: 0 }`).
 */
export type PriceTable = Partial<Record<ProviderId, Record<string, ModelPrice>>>;
