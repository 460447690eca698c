/**
 * The reporter's "tool operations" count: each world operation once, whether the file's world log
 * or a run's evidence (a copy with its timing) lists it. End to end: __tests__/installed/truthful.test.ts.
 *
 * @understudy-world ../../../../examples/python-agent/orders.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { getRuntime } from '../../../../src/sandbox/runtime';

const getOrder = async () => (await fetch('https://orders.example.test/v1/orders/A-1001')).json();

it('counts an operation inside a run once, and one outside every run once', async () => {
  const before = getRuntime().fileStats().operations;
  const run = await understudy.run(getOrder);
  expect(run.operations).toHaveLength(1);
  expect(getRuntime().fileStats().operations - before).toBe(1);
  await getOrder();
  expect(getRuntime().fileStats().operations - before).toBe(2);
  // Counted again at the end of the test and the file: still once.
  expect(getRuntime().fileStats().operations - before).toBe(2);
});
