/**
 * Deterministic embeddings: the same text and model give the same vector on every run. Each
 * word contributes a pseudo-random direction seeded from it, so texts that share words point
 * the same way and a RAG agent's retrieval ranks as it would on real vectors (cosine
 * similarity grows with the words in common). Vectors are unit length, as the providers' are,
 * and `dimensions` keeps the leading components and normalizes again (as OpenAI's do).
 */
import { seededRandom } from '../random';

// Built-ins read once: in Jest's sandbox every global name lookup goes through the context's interceptors.
const { imul, fround, sqrt, max } = Math;
const F64 = Float64Array;

/** The vector length of each model when the request names none. */
const DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'gemini-embedding-exp-03-07': 3072,
  'text-embedding-004': 768,
  'text-embedding-005': 768,
  'text-multilingual-embedding-002': 768,
  'embedding-001': 768,
  'amazon.titan-embed-text-v2:0': 1024,
};

/** OpenAI-compatible servers and unknown models get OpenAI's small model's length. */
export const DEFAULT_DIMENSIONS = 1536;

export function dimensionsOf(model: string): number {
  const name = model.replace(/^models\//, '');
  return DIMENSIONS[name] ?? DEFAULT_DIMENSIONS;
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
  for (const word of words) {
    const next = seededRandom(seed(`${model}\u0000${word}`));
    for (let i = 0; i < size; i++) vector[i] += next() * 2 - 1;
  }
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
