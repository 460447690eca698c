import { describe, expect, it } from '@jest/globals';
import { lazyFunction } from '../../../src/lazy';

describe('lazyFunction', () => {
  it('loads the module on the first call, once, and passes the arguments and the result through', () => {
    let loads = 0;
    const module = { add: (a: number, b: number) => a + b };
    const add = lazyFunction(() => {
      loads++;
      return module;
    }, 'add');
    expect(loads).toBe(0);
    expect(add(2, 3)).toBe(5);
    expect(add(4, 5)).toBe(9);
    expect(loads).toBe(1);
  });

  it('tries again after a load that threw', () => {
    let attempts = 0;
    const twice = lazyFunction(() => {
      attempts++;
      if (attempts === 1) throw new Error('not yet');
      return { twice: (n: number) => 2 * n };
    }, 'twice');
    expect(() => twice(1)).toThrow('not yet');
    expect(twice(4)).toBe(8);
    expect(attempts).toBe(2);
  });
});
