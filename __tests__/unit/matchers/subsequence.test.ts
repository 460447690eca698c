import { describe, expect, it } from '@jest/globals';
import { longestOrderedMatching } from '../../../matchers/subsequence';

const equal = (expected: string[], actual: string[]) => (i: number, j: number) => expected[i] === actual[j];
const align = (expected: string[], actual: string[]) =>
  longestOrderedMatching(expected.length, actual.length, equal(expected, actual));

describe('longestOrderedMatching', () => {
  it('finds a subsequence with calls in between', () => {
    expect(align(['a', 'c'], ['a', 'b', 'c'])).toEqual([
      [0, 0],
      [1, 2],
    ]);
  });

  it('pairs each step with the earliest call that keeps the alignment optimal', () => {
    expect(align(['a', 'b'], ['a', 'a', 'b', 'b'])).toEqual([
      [0, 0],
      [1, 2],
    ]);
  });

  it('keeps the longest alignment where a first-match scan would lock on early', () => {
    // Scanning for 'x' first consumes the last call and then finds neither 'a' nor 'b'.
    expect(align(['x', 'a', 'b'], ['a', 'b', 'x'])).toEqual([
      [1, 0],
      [2, 1],
    ]);
  });

  it('works with any pairing predicate, not just equality', () => {
    const accepts = [
      [true, true],
      [true, false],
    ];
    // Step 0 accepts both calls, step 1 only call 0: they cannot both be placed in order.
    expect(longestOrderedMatching(2, 2, (i, j) => accepts[i][j])).toHaveLength(1);
  });

  it('handles empty sequences', () => {
    expect(align([], ['a'])).toEqual([]);
    expect(align(['a'], [])).toEqual([]);
  });
});
