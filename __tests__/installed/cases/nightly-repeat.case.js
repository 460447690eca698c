// Run again and again by `understudy live --repeat N`: the stand-in answers the model
// `every-third` with lookup_refund on every third question (lookup_order otherwise), so this
// test passes two runs in three; `steady` never calls a tool.
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { openaiAgent } = require('./nightly-agent.js');

it('finds the order', async () => {
  const run = await understudy.run(() => openaiAgent('every-third', 'Where is order A-1001?'));
  expect(run).toHaveRequestedTool('lookup_order', { orderId: 'A-1001' });
  expect(run.finalMessage).toContain('shipped');
});

it('answers a greeting', async () => {
  const run = await understudy.run(() => openaiAgent('steady', 'Hello there'));
  expect(run.finalMessage).toBe('You said: Hello there');
});
