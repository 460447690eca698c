/**
 * Deterministic embeddings: the same text and model give the same vector on every run. Each
 * word contributes a pseudo-random direction seeded from it, so texts that share words point
 * the same way and a RAG agent's retrieval ranks as it would on real vectors (cosine
 * similarity grows with the words in common). Vectors are unit length, as the providers' are,
 * and `dimensions` keeps the leading components and normalizes again (as OpenAI's do).
 */
import { fullDimensionsOf } from '../providers/embedding-codec';
import { addSeededRandom } from '../random';

// Built-ins read once: in Jest's sandbox every global name lookup goes through the context's interceptors.
const { imul, fround, sqrt, max } = Math;
const F64 = Float64Array;

/** OpenAI-compatible servers and unknown models get OpenAI's small model's length. */
export const DEFAULT_DIMENSIONS = 1536;

/** The vector length of `model` when the request names none. */
export function dimensionsOf(model: string): number {
  return fullDimensionsOf(model) ?? DEFAULT_DIMENSIONS;
}

function seed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const WORDS = /[\p{L}\p{N}]+/gu;

/** The unit vector for `text` under `model`, `dimensions` long. */
export function embedding(text: string, model: string, dimensions: number): number[] {
  const full = dimensionsOf(model);
  const length = max(dimensions, 1);
  const size = max(full, length);
  const vector = new F64(size);
  const words = text.toLowerCase().match(WORDS) ?? [text];
  for (const word of words) addSeededRandom(seed(`${model}\u0000${word}`), vector, 2, -1);
  let sum = 0;
  for (let i = 0; i < length; i++) sum += vector[i] * vector[i];
  const norm = sqrt(sum) || 1;
  // Rounded to float32, the precision the APIs send.
  const out = new Array<number>(length);
  for (let i = 0; i < length; i++) out[i] = fround(vector[i] / norm);
  return out;
}

/** About four characters a token, as the chat usage estimate. */
export function tokensOf(inputs: string[]): number {
  return inputs.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
}
