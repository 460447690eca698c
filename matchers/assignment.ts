/**
 * Maximum bipartite matching (Kuhn's augmenting paths).
 *
 * Unordered trajectory modes pair expected steps with calls. A first-fit greedy
 * pass can spend a call on a loose expectation (`{ name: 'a' }`) that a stricter
 * one needed later, and then report a failure although a valid pairing exists.
 * Augmenting paths re-seat earlier pairs instead, so the matching is maximum.
 * Trajectories are short, so the O(V·E) bound is plenty.
 */
export interface Assignment {
  /** `rightOf[l]` is the right item paired with left item `l`, or -1. */
  rightOf: number[];
  /** `leftOf[r]` is the left item paired with right item `r`, or -1. */
  leftOf: number[];
  size: number;
}

export function maximumMatching(
  leftCount: number,
  rightCount: number,
  canPair: (left: number, right: number) => boolean,
): Assignment {
  // Ask the predicate once per pair: it may run deep equality with matchers.
  const edges: number[][] = [];
  for (let l = 0; l < leftCount; l++) {
    edges.push([]);
    for (let r = 0; r < rightCount; r++) if (canPair(l, r)) edges[l].push(r);
  }

  const rightOf = new Array<number>(leftCount).fill(-1);
  const leftOf = new Array<number>(rightCount).fill(-1);

  const augment = (l: number, visited: boolean[]): boolean => {
    for (const r of edges[l]) {
      if (visited[r]) continue;
      visited[r] = true;
      if (leftOf[r] === -1 || augment(leftOf[r], visited)) {
        leftOf[r] = l;
        rightOf[l] = r;
        return true;
      }
    }
    return false;
  };

  let size = 0;
  for (let l = 0; l < leftCount; l++) {
    if (augment(l, new Array<boolean>(rightCount).fill(false))) size++;
  }
  return { rightOf, leftOf, size };
}
