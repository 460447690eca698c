/**
 * The prices shipped with the package, in USD per million tokens, for the models agents use
 * today. Read from the providers' pricing pages (openai.com/api/pricing,
 * platform.claude.com/docs/en/about-claude/pricing, ai.google.dev/gemini-api/docs/pricing,
 * aws.amazon.com/bedrock/pricing) as they stood in 2026 (checked 2026-12-05): standard tier,
 * not batch, flex or priority. A model missing here has no price (never 0): the user adds it
 * with the `prices` option, which also overrides any entry below.
 *
 * Keys are the model ids without a date or version suffix (`gpt-4o-2024-08-06` is priced as
 * `gpt-4o`, `anthropic.claude-sonnet-4-5-20250929-v1:0` as `anthropic.claude-sonnet-4-5`);
 * a snapshot priced apart from its family has a key of its own.
 */
import type { PriceTable } from './types';

const CLAUDE_OPUS_4_5 = { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 };
const CLAUDE_OPUS_4 = { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 };
const CLAUDE_SONNET_4 = {
  input: 3,
  output: 15,
  cachedInput: 0.3,
  cacheWrite: 3.75,
  // The 1M-token context window: a prompt over 200K tokens is billed at these rates, whole.
  longContext: { above: 200_000, input: 6, output: 22.5, cachedInput: 0.6, cacheWrite: 7.5 },
};
const CLAUDE_SONNET_4_6 = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
const CLAUDE_HAIKU_4_5 = { input: 1, output: 5, cachedInput: 0.1, cacheWrite: 1.25 };
const CLAUDE_HAIKU_3_5 = { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 };

export const BUILT_IN_PRICES: PriceTable = {
  openai: {
    'gpt-5': { input: 1.25, output: 10, cachedInput: 0.125 },
    'gpt-5.1': { input: 1.25, output: 10, cachedInput: 0.125 },
    'gpt-5-mini': { input: 0.25, output: 2, cachedInput: 0.025 },
    'gpt-5-nano': { input: 0.05, output: 0.4, cachedInput: 0.005 },
    'gpt-5-chat-latest': { input: 1.25, output: 10, cachedInput: 0.125 },
    'gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
    'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
    'gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
    'gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
    // The first gpt-4o snapshot kept its launch price.
    'gpt-4o-2024-05-13': { input: 5, output: 15 },
    'gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
    o3: { input: 2, output: 8, cachedInput: 0.5 },
    'o3-mini': { input: 1.1, output: 4.4, cachedInput: 0.55 },
    'o4-mini': { input: 1.1, output: 4.4, cachedInput: 0.275 },
    'text-embedding-3-small': { input: 0.02, output: 0 },
    'text-embedding-3-large': { input: 0.13, output: 0 },
  },
  anthropic: {
    'claude-opus-4-6': CLAUDE_OPUS_4_5,
    'claude-opus-4-5': CLAUDE_OPUS_4_5,
    'claude-opus-4-1': CLAUDE_OPUS_4,
    'claude-opus-4': CLAUDE_OPUS_4,
    'claude-opus-4-0': CLAUDE_OPUS_4,
    'claude-sonnet-4-6': CLAUDE_SONNET_4_6,
    'claude-sonnet-4-5': CLAUDE_SONNET_4,
    'claude-sonnet-4': CLAUDE_SONNET_4,
    'claude-sonnet-4-0': CLAUDE_SONNET_4,
    'claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
    'claude-haiku-4-5': CLAUDE_HAIKU_4_5,
    'claude-3-5-haiku': CLAUDE_HAIKU_3_5,
  },
  gemini: {
    'gemini-3-pro-preview': {
      input: 2,
      output: 12,
      cachedInput: 0.2,
      longContext: { above: 200_000, input: 4, output: 18, cachedInput: 0.4 },
    },
    'gemini-3-flash-preview': { input: 0.5, output: 3, cachedInput: 0.05 },
    'gemini-2.5-pro': {
      input: 1.25,
      output: 10,
      cachedInput: 0.125,
      longContext: { above: 200_000, input: 2.5, output: 15, cachedInput: 0.25 },
    },
    'gemini-2.5-flash': { input: 0.3, output: 2.5, cachedInput: 0.03 },
    'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cachedInput: 0.01 },
    'gemini-2.0-flash': { input: 0.1, output: 0.4, cachedInput: 0.025 },
    'gemini-2.0-flash-lite': { input: 0.075, output: 0.3 },
    'gemini-embedding-001': { input: 0.15, output: 0 },
  },
  bedrock: {
    'anthropic.claude-opus-4-5': CLAUDE_OPUS_4_5,
    'anthropic.claude-opus-4-1': CLAUDE_OPUS_4,
    'anthropic.claude-sonnet-4-6': CLAUDE_SONNET_4_6,
    'anthropic.claude-sonnet-4-5': CLAUDE_SONNET_4,
    'anthropic.claude-sonnet-4': CLAUDE_SONNET_4,
    'anthropic.claude-3-7-sonnet': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
    'anthropic.claude-haiku-4-5': CLAUDE_HAIKU_4_5,
    'anthropic.claude-3-5-haiku': CLAUDE_HAIKU_3_5,
    'amazon.nova-pro': { input: 0.8, output: 3.2, cachedInput: 0.2 },
    'amazon.nova-lite': { input: 0.06, output: 0.24, cachedInput: 0.015 },
    'amazon.nova-micro': { input: 0.035, output: 0.14, cachedInput: 0.00875 },
  },
};
