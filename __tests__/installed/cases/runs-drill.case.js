/**
 * Drills report an agent that throws through their verdict, once.
 * @understudy-world ./runs.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { mockTool, runDrills } = require('jest-understudy');

const crash = async () => {
  throw new Error('the drill agent crashed');
};

it('toHavePassedDrill reports the agent error', async () => {
  const result = await runDrills({ drill: 'read-note', agent: crash });
  expect(result).toHavePassedDrill();
});

it('fails when nobody checks the drill', async () => {
  await runDrills({ drill: 'read-note', agent: crash });
});

it('passes when the test reads the verdict', async () => {
  const result = await runDrills({ drill: 'read-note', agent: crash });
  expect(result.verdict).toBe('failed');
});

it('a passing drill needs no look', async () => {
  await runDrills({
    drill: 'read-note',
    agent: ({ binding }) =>
      mockTool(binding, { mode: 'sync', operation: { packageId: 'notes', operationId: 'notes.get' } })({
        id: 'n-1',
      }),
  });
});
