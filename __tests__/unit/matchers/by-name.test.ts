/**
 * The matchers as the runner adapters register them, by name: each loads the matchers on its first
 * call, not when registered, and hands its call on with the runner's context as adapted.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { MATCHER_NAMES, matchersByName } from '../../../matchers/names';

describe('matchersByName', () => {
  it('names every matcher and loads none until one is called', () => {
    const load = jest.fn(() => ({}));
    const registered = matchersByName(load);
    expect(Object.keys(registered)).toEqual([...MATCHER_NAMES]);
    expect(load).not.toHaveBeenCalled();
  });

  it("hands a call to the loaded matcher of its name, with the runner's context adapted, and returns its result", () => {
    const seen: unknown[] = [];
    const toHaveFinalMessage = function (this: unknown, ...args: unknown[]) {
      seen.push(this, args);
      return { pass: false, message: () => 'wrong' };
    };
    const registered = matchersByName(
      () => ({ toHaveFinalMessage }),
      (runner) => ({ ...(runner as object), adapted: true }),
    );
    const result = registered.toHaveFinalMessage.call({ isNot: undefined }, 'run', 'Refunded.');
    expect(result).toEqual({ pass: false, message: expect.any(Function) });
    expect(seen).toEqual([{ isNot: undefined, adapted: true }, ['run', 'Refunded.']]);
  });
});
