/**
 * jest-matcher-utils as the matchers use it: the copy Jest hands every matcher as `this.utils`
 * when there is one. Jest loads its `expect` outside the test file's module registry, so
 * importing jest-matcher-utils here would load it (with jest-diff, pretty-format and chalk)
 * once more in every test file; the matchers' own copy is the fallback for an `expect` that
 * passes no utils.
 */
type MatcherUtils = typeof import('jest-matcher-utils');

let current: MatcherUtils | undefined;

const utils = (): MatcherUtils => (current ??= require('jest-matcher-utils') as MatcherUtils);

/** Wraps a matcher so the helpers below use the utils of the `expect` that called it. */
export function withCallerUtils<F extends (this: any, ...args: any[]) => unknown>(matcher: F): F {
  return function (this: { utils?: Partial<MatcherUtils> } | undefined, ...args: unknown[]) {
    const given = this?.utils;
    if (given && typeof given.printExpected === 'function' && typeof given.matcherErrorMessage === 'function')
      current = given as MatcherUtils;
    return matcher.apply(this, args);
  } as F;
}

export const EXPECTED_COLOR: MatcherUtils['EXPECTED_COLOR'] = ((text: string) =>
  utils().EXPECTED_COLOR(text)) as MatcherUtils['EXPECTED_COLOR'];
export const RECEIVED_COLOR: MatcherUtils['RECEIVED_COLOR'] = ((text: string) =>
  utils().RECEIVED_COLOR(text)) as MatcherUtils['RECEIVED_COLOR'];
export const matcherErrorMessage: MatcherUtils['matcherErrorMessage'] = (...args) =>
  utils().matcherErrorMessage(...args);
export const printDiffOrStringify: MatcherUtils['printDiffOrStringify'] = (...args) =>
  utils().printDiffOrStringify(...args);
export const printExpected: MatcherUtils['printExpected'] = (...args) => utils().printExpected(...args);
export const printReceived: MatcherUtils['printReceived'] = (...args) => utils().printReceived(...args);
export const printWithType: MatcherUtils['printWithType'] = (...args) => utils().printWithType(...args);
export const stringify: MatcherUtils['stringify'] = (...args) => utils().stringify(...args);
