// Recorded, then run live against a stand-in whose `drifting` model has moved on (it asks for
// find_order with other arguments): the drift of 'tracks the order' is scored, and
// `--refresh-above` re-records only it. 'greets' (no tool) does not drift and keeps its fixtures.
const { expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { anthropicAgent } = require('./nightly-agent.js');

it('tracks the order', async () => {
  const run = await understudy.run(() => anthropicAgent('drifting', 'Where is order C-3003?'));
  expect(run.finalMessage).toContain('shipped');
});

it('greets', async () => {
  const run = await understudy.run(() => anthropicAgent('steady', 'Good morning'));
  expect(run.finalMessage).toBe('You said: Good morning');
});
