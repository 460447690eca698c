/**
 * The unambiguous trajectory mode names and the tool matchers' "did you mean" on a real agent run,
 * each with a case that must fail; and a tool error declared without a message.
 * @understudy-world ./pyramid.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { mockTool, understudy } = require('jest-understudy');
// Looks the order up, then pages: the first page fails BUSY (the world's busy-once override).
const { pageRun } = require('./pyramid-agent');

it('contains and within pass where the run holds', async () => {
  const run = await pageRun();
  expect(run).toHaveCalledToolSequence(['page_oncall', 'lookup_order'], { mode: 'contains' });
  expect(run).toHaveCalledToolSequence(['lookup_order', 'page_oncall', 'page_oncall', 'issue_refund'], {
    mode: 'within',
  });
  expect(run).toHaveCalledToolSequence([{ name: 'lookup_order', args: {} }], {
    mode: 'contains',
    args: 'contains',
  });
  expect(run).toHaveCalledToolSequence([{ name: 'lookup_order', args: { id: 'A-1', note: 'x' } }], {
    mode: 'contains',
    args: 'within',
  });
});

it('no false green: within fails on a call outside the expected steps', async () => {
  const run = await pageRun();
  expect(run).toHaveCalledToolSequence(['lookup_order'], { mode: 'within' });
});

it('no false green: contains fails on a missing step', async () => {
  const run = await pageRun();
  expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund'], { mode: 'contains' });
});

it('a typo in a tool name fails with did you mean', async () => {
  const run = await pageRun();
  expect(run).toHaveCalledTool('lookup_ordr');
});

it('a tool error declared without a message says its code once', () => {
  const page = mockTool(understudy.world.bind(), {
    mode: 'sync',
    operation: { packageId: 'pager', operationId: 'pages.create' },
  });
  page({ id: 'p-1', text: 'late' });
});
