/**
 * Longest order-preserving matching between an expected and an actual sequence
 * (LCS with a pairing predicate instead of equality).
 *
 * Whether expected is a subsequence of actual is decided by the length alone
 * (`pairs.length === expectedCount`). The full alignment also explains a failure:
 * it keeps as many expected steps in place as possible, where a first-match scan
 * can lock onto an early call and then report every later step as missing.
 */
export type Pair = readonly [expected: number, actual: number];

export function longestOrderedMatching(
  expectedCount: number,
  actualCount: number,
  canPair: (expected: number, actual: number) => boolean,
): Pair[] {
  const width = actualCount + 1;
  const fits = new Uint8Array(expectedCount * actualCount);
  // best[i * width + j] = longest matching of expected[i..] with actual[j..].
  const best = new Uint32Array((expectedCount + 1) * width);
  for (let i = expectedCount - 1; i >= 0; i--) {
    for (let j = actualCount - 1; j >= 0; j--) {
      const fit = canPair(i, j);
      fits[i * actualCount + j] = fit ? 1 : 0;
      const skip = Math.max(best[(i + 1) * width + j], best[i * width + j + 1]);
      best[i * width + j] = fit ? Math.max(skip, best[(i + 1) * width + j + 1] + 1) : skip;
    }
  }

  // Walk forward, pairing each expected step with the earliest call that still
  // allows an optimal alignment; skip calls before skipping expected steps.
  const pairs: Pair[] = [];
  let i = 0;
  let j = 0;
  while (i < expectedCount && j < actualCount) {
    const here = best[i * width + j];
    if (fits[i * actualCount + j] && here === best[(i + 1) * width + j + 1] + 1) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (best[i * width + j + 1] === here) {
      j++;
    } else {
      i++;
    }
  }
  return pairs;
}
