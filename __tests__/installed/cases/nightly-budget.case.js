// Two model calls of 40 tokens each per run: a --budget-tokens 100 cap is reached in the
// second run, mid-test.
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { openaiAgent } = require('./nightly-agent.js');

it('finds the order within budget', async () => {
  const run = await understudy.run(() => openaiAgent('steady-tool', 'Where is order D-4004?'));
  expect(run).toHaveRequestedTool('lookup_order', { orderId: 'D-4004' });
});
