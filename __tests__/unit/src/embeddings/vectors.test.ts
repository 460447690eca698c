/**
 * The deterministic vectors are a promise across versions: a test's recorded similarity or a
 * snapshot of a retrieval stays true only if the same text gives the same bytes. These pin them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { embedding } from '../../../../src/embeddings/vectors';
import { openaiEmbeddings } from '../../../../src/providers/openai-embeddings';
import { addSeededRandom, seededRandom } from '../../../../src/random';

const base64Body = (text: string, model: string, dimensions: number) =>
  openaiEmbeddings.encode(
    [embedding(text, model, dimensions)],
    {
      model,
      inputs: [text],
      encoding: 'base64',
      batch: true,
    },
    3,
  ).body as string;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('deterministic embeddings', () => {
  it('gives the same vectors, to the byte, as every earlier version', () => {
    expect(sha256(base64Body('refund policy', 'text-embedding-3-small', 1536))).toBe(
      '8aaa43710cd17e84e290beab45636fd02d370b0e2077a36ee4a2ae48e52550b7',
    );
    expect(sha256(base64Body('Ünïcödé 東京 123, twice twice', 'text-embedding-3-large', 256))).toBe(
      '5cff0906bd8017886da425919c2583fa44f8e65264bd2678ee0d8547e02095de',
    );
    expect(embedding('refund policy', 'text-embedding-3-small', 1536).slice(0, 3)).toEqual([
      -0.03343956544995308, 0.017557309940457344, -0.0027139701414853334,
    ]);
  });

  it('sends in base64 the little-endian float32 bytes of the vector it would send as numbers', () => {
    const vector = [0, -0, 1e-45, 3.4028234663852886e38, -1, 0.1, ...embedding('a b', 'm', 64)];
    const body = JSON.parse(
      openaiEmbeddings.encode([vector], { model: 'm', inputs: ['a b'], encoding: 'base64', batch: true }, 1)
        .body as string,
    );
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    expect(bytes.length).toBe(vector.length * 4);
    expect(vector.map((_, i) => bytes.readFloatLE(i * 4))).toEqual(vector.map(Math.fround));
  });

  it('adds the draws of seededRandom, in order, scaled and offset', () => {
    for (const seed of [0, 1, 0xffffffff, 123456789]) {
      const into = new Float64Array(300).fill(0.5);
      addSeededRandom(seed, into, 2, -1);
      const next = seededRandom(seed);
      expect([...into]).toEqual(Array.from({ length: 300 }, () => 0.5 + (next() * 2 - 1)));
    }
  });
});
