import { maximumMatching } from './assignment';
import type { TrajectoryMatch } from './modes';
import { longestOrderedMatching } from './subsequence';

/** One line of the expected/received table; `ok: false` lines break the expectation. */
export interface AlignedRow {
  expected?: number;
  received?: number;
  ok: boolean;
}

export interface Comparison {
  pass: boolean;
  /** Expected and received steps side by side; paired steps share a row. */
  rows: AlignedRow[];
  /** Expected steps no call was paired with. */
  missing: number[];
  /** Calls no expected step was paired with. */
  unexpected: number[];
}

/**
 * Compares `expectedCount` steps with `receivedCount` calls under a mode, given
 * whether step `i` accepts call `j`. Pure, so the matcher only formats.
 */
export function compareTrajectory(
  mode: TrajectoryMatch,
  expectedCount: number,
  receivedCount: number,
  fits: (expected: number, received: number) => boolean,
): Comparison {
  if (mode === 'exact') return compareExact(expectedCount, receivedCount, fits);
  if (mode === 'ordered') return compareOrdered(expectedCount, receivedCount, fits);

  const { rightOf, leftOf } = maximumMatching(expectedCount, receivedCount, fits);
  const missing = indicesOf(rightOf, -1);
  const unexpected = indicesOf(leftOf, -1);
  const missingAllowed = mode === 'within';
  const extrasAllowed = mode === 'contains';
  const rows: AlignedRow[] = [
    ...leftOf.map((e, r) =>
      e === -1 ? { received: r, ok: extrasAllowed } : { expected: e, received: r, ok: true },
    ),
    ...missing.map((e) => ({ expected: e, ok: missingAllowed })),
  ];
  return {
    pass: rows.every((row) => row.ok),
    rows,
    missing,
    unexpected,
  };
}

function compareExact(
  expectedCount: number,
  receivedCount: number,
  fits: (expected: number, received: number) => boolean,
): Comparison {
  const rows: AlignedRow[] = [];
  for (let i = 0; i < Math.max(expectedCount, receivedCount); i++) {
    rows.push({
      expected: i < expectedCount ? i : undefined,
      received: i < receivedCount ? i : undefined,
      ok: i < expectedCount && i < receivedCount && fits(i, i),
    });
  }
  return {
    pass: rows.every((row) => row.ok),
    rows,
    missing: rows.filter((r) => !r.ok && r.expected !== undefined).map((r) => r.expected!),
    unexpected: rows.filter((r) => !r.ok && r.received !== undefined).map((r) => r.received!),
  };
}

function compareOrdered(
  expectedCount: number,
  receivedCount: number,
  fits: (expected: number, received: number) => boolean,
): Comparison {
  const pairs = longestOrderedMatching(expectedCount, receivedCount, fits);
  const rows: AlignedRow[] = [];
  const missing: number[] = [];
  const unexpected: number[] = [];
  let nextExpected = 0;
  let nextReceived = 0;
  // A sentinel pair past both ends flushes the trailing gap.
  for (const [e, r] of [...pairs, [expectedCount, receivedCount] as const]) {
    // Unpaired steps between two pairs share rows, so a step that is missing
    // appears next to the call made where it was expected.
    const gap = Math.max(e - nextExpected, r - nextReceived);
    for (let k = 0; k < gap; k++) {
      const ge = nextExpected + k < e ? nextExpected + k : undefined;
      const gr = nextReceived + k < r ? nextReceived + k : undefined;
      if (ge !== undefined) missing.push(ge);
      if (gr !== undefined) unexpected.push(gr);
      rows.push({ expected: ge, received: gr, ok: ge === undefined });
    }
    if (e < expectedCount) rows.push({ expected: e, received: r, ok: true });
    nextExpected = e + 1;
    nextReceived = r + 1;
  }
  return { pass: missing.length === 0, rows, missing, unexpected };
}

function indicesOf(values: readonly number[], wanted: number): number[] {
  return values.flatMap((value, index) => (value === wanted ? [index] : []));
}
