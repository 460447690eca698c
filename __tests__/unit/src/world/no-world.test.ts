/**
 * Without a world (no option, no pragma): every world API says how to get one.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { expect, it } from '@jest/globals';
import { runDrills, understudy, WorldError } from 'jest-understudy';

it('the world APIs explain how to load a world', async () => {
  expect(understudy.world.loaded).toBe(false);
  const message =
    'no world is loaded for this test file. Set testEnvironmentOptions.understudy.world in the Jest config, add the docblock pragma `@understudy-world <path>` to the test file, or call understudy.world.load(path).';
  expect(() => understudy.world.state).toThrow(WorldError);
  expect(() => understudy.world.bind()).toThrow(`understudy.world: ${message}`);
  await expect(runDrills({ drill: 'x', agent: async () => undefined })).rejects.toThrow(
    `runDrills: ${message}`,
  );
  // HTTP to any host is left alone by the world (the environment fails unmocked requests as usual).
  expect(understudy.world.loaded).toBe(false);
});
