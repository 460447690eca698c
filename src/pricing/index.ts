export { type CostUsage, costOf, priceOf, withPrices } from './cost';
export { BUILT_IN_PRICES } from './prices';
export type { ModelPrice, PriceTable, TokenRates } from './types';
