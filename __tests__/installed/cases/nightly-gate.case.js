// A live() test with a gate of its own: the stand-in answers `every-third-gated` with
// lookup_refund on every third question, so it passes two runs in three, over its 0.5 gate.
const { expect } = require('./runner-globals.cjs');
const { live, understudy } = require('jest-understudy');
const { openaiAgent } = require('./nightly-agent.js');

live(
  'finds the order, gated at one half',
  async () => {
    const run = await understudy.run(() => openaiAgent('every-third-gated', 'Where is order B-2002?'));
    expect(run).toHaveRequestedTool('lookup_order', { orderId: 'B-2002' });
  },
  { minPassRate: 0.5, timeout: 20_000 },
);
