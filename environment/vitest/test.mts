/// <reference path="./matchers.mts" preserve="true" />
/**
 * `jest-understudy/vitest/test`: Vitest's `test`, extended with fixtures bound to the test file's
 * session, for tests that take what they use as arguments (`test('…', async ({ model, run }) => …)`)
 * instead of reading the `understudy` handle. A fixture is set up only for a test that names it,
 * and is the same object the handle gives: `model` is the file's mock model (what a test `use`s
 * holds for that test), `world` the file's world, `run` runs an agent and returns its `Run`.
 */

import type { TestAPI } from 'vitest';
import { test as vitestTest } from 'vitest';
import type { Understudy } from '../../src/understudy.js';
import realm from './realm.js';

/** What a test of `jest-understudy/vitest/test` can name in its first argument. */
export interface UnderstudyFixtures {
  /** This test file's mock model (`understudy.model`). */
  model: Understudy['model'];
  /** This test file's world (`understudy.world`). */
  world: Understudy['world'];
  /** Runs any agent function and returns its `Run` (`understudy.run`). */
  run: Understudy['run'];
}

// Vitest reads which fixtures a fixture depends on from its first parameter, which must be a
// destructuring pattern; these depend on none.
/** The fixtures, for a `test.extend` of your own: `myTest.extend(understudyFixtures)`. */
export const understudyFixtures = {
  // biome-ignore lint/correctness/noEmptyPattern: Vitest requires an object pattern here.
  model: async ({}, use: (model: UnderstudyFixtures['model']) => Promise<void>) =>
    use(realm.understudy.model),
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  world: async ({}, use: (world: UnderstudyFixtures['world']) => Promise<void>) =>
    use(realm.understudy.world),
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  run: async ({}, use: (run: UnderstudyFixtures['run']) => Promise<void>) =>
    use((agent, options) => realm.understudy.run(agent, options)),
};

/** Vitest's `test` with the fixtures `model`, `world` and `run`. */
export const test: TestAPI<UnderstudyFixtures> = vitestTest.extend<UnderstudyFixtures>(understudyFixtures);
/** The same as `test`. */
export const it: TestAPI<UnderstudyFixtures> = test;
