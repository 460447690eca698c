/**
 * @understudy-world ./no-such.world.yaml
 */
import { understudy } from 'jest-understudy';
import { expect, it } from 'vitest';

it('never runs: the world the pragma names is missing', () => {
  expect(understudy.world.state).toBeDefined();
});
