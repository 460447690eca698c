/** Seeded randomness, for what must draw the same sequence on every run (chaos faults, world faults). */

// Read once: in Jest's sandbox every global name lookup goes through the context's interceptors,
// and embeddings draw thousands of numbers per vector.
const { imul } = Math;

/** mulberry32: tiny, fast, and the same sequence for the same seed on every platform. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Adds `scale * draw + offset` to each element of `into`, for the draws `seededRandom(seed)`
 * would give in turn: the same numbers, without a closure call per draw (embeddings add
 * thousands per word).
 */
export function addSeededRandom(seed: number, into: Float64Array, scale: number, offset: number): void {
  let a = seed >>> 0;
  for (let i = 0; i < into.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    into[i] += (((t ^ (t >>> 14)) >>> 0) / 4294967296) * scale + offset;
  }
}
