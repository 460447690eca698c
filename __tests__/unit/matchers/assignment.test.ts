import { describe, expect, it } from '@jest/globals';
import { maximumMatching } from '../../../matchers/assignment';

const fromTable = (table: number[][]) => (l: number, r: number) => table[l][r] === 1;

describe('maximumMatching', () => {
  it('pairs everything when a perfect matching exists', () => {
    const result = maximumMatching(2, 2, () => true);
    expect(result.size).toBe(2);
    expect(new Set(result.rightOf)).toEqual(new Set([0, 1]));
  });

  it('re-seats an earlier pair instead of failing like first-fit would', () => {
    // Left 0 accepts both, left 1 only right 0: first-fit gives right 0 to left 0 and strands left 1.
    const result = maximumMatching(
      2,
      2,
      fromTable([
        [1, 1],
        [1, 0],
      ]),
    );
    expect(result).toEqual({ rightOf: [1, 0], leftOf: [1, 0], size: 2 });
  });

  it('finds augmenting paths through several pairs', () => {
    const result = maximumMatching(
      3,
      3,
      fromTable([
        [1, 1, 0],
        [1, 0, 0],
        [0, 1, 1],
      ]),
    );
    expect(result.size).toBe(3);
    expect(result.rightOf).toEqual([1, 0, 2]);
  });

  it('reports what stays unpaired', () => {
    const result = maximumMatching(
      3,
      2,
      fromTable([
        [1, 0],
        [1, 0],
        [0, 0],
      ]),
    );
    expect(result.size).toBe(1);
    expect(result.rightOf.filter((r) => r === -1)).toHaveLength(2);
    expect(result.leftOf[1]).toBe(-1);
  });

  it('handles empty sides', () => {
    expect(maximumMatching(0, 3, () => true)).toEqual({ rightOf: [], leftOf: [-1, -1, -1], size: 0 });
    expect(maximumMatching(2, 0, () => true)).toEqual({ rightOf: [-1, -1], leftOf: [], size: 0 });
  });

  it('asks the predicate once per pair', () => {
    let asked = 0;
    maximumMatching(4, 5, () => {
      asked++;
      return true;
    });
    expect(asked).toBe(20);
  });
});
