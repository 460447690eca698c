/** Seeded randomness per purpose (a fault's rate, a package's ctx.random), reproducible from the world's seed. */
import { seededRandom } from '../../random';
import type { EngineCore } from './state';

function hashSeed(seed: number, key: string): number {
  let h = seed >>> 0 || 1;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function random(core: EngineCore, key: string): () => number {
  let random = core.state.randoms.get(key);
  if (!random) {
    random = seededRandom(hashSeed(core.seed, key));
    core.state.randoms.set(key, random);
  }
  return random;
}
