/**
 * The outcome, permission, step-count and span matchers on a real agent run; each has a case
 * that must fail when the agent did the thing the matcher forbids.
 * @understudy-world ./pyramid.world.yaml
 */
const { beforeEach, expect, it } = require('./runner-globals.cjs');
const { pageRun } = require('./pyramid-agent');

let run;
beforeEach(async () => {
  run = await pageRun();
});

it('passes on outcomes, argsBy, permissions, step counts and spans that hold', () => {
  expect(run).toHaveCalledTool('page_oncall', { id: 'p-1' }, { code: 'BUSY', times: 1 });
  expect(run).toHaveCalledTool('page_oncall', undefined, { outcome: 'ok', times: 1 });
  expect(run).toHaveCalledToolSequence(
    [
      'lookup_order',
      { name: 'page_oncall', outcome: 'error', code: 'BUSY' },
      { name: 'page_oncall', args: { id: 'p-1', text: 'anything' }, outcome: 'ok' },
    ],
    { argsBy: { page_oncall: ['id'] } },
  );
  expect(run).toOnlyCallTools(['lookup_order', 'page_oncall']);
  expect(run).toNeverCallTools(['issue_refund', { name: 'lookup_order', args: { id: 'B-2' } }]);
  expect(run).toHaveStepCount(4);
  expect(run).toHaveSpans({ kind: 'tool', count: 3 });
  expect(run).toHaveSpans({ kind: 'operation', status: 'error', count: 1 });
});

it('no false green: toNeverCallTools fails when the agent called one', () => {
  expect(run).toNeverCallTools(['page_oncall']);
});

it('no false green: toOnlyCallTools fails when the agent called another tool', () => {
  expect(run).toOnlyCallTools(['lookup_order']);
});

it('no false green: outcome ok fails when every page the agent sent first failed BUSY', () => {
  expect(run).toHaveCalledTool('page_oncall', undefined, { outcome: 'ok', times: 2 });
});

it('no false green: argsBy naming an argument still compares it', () => {
  expect(run).toHaveCalledToolSequence(
    ['lookup_order', { name: 'page_oncall', args: { id: 'p-9' } }, 'page_oncall'],
    {
      argsBy: { page_oncall: ['id'] },
    },
  );
});

it('no false green: a step-count bound fails on a run with more steps', () => {
  expect(run).toHaveStepCount({ max: 3 });
});

it('no false green: no error spans fails when an operation failed', () => {
  expect(run).toHaveSpans({ status: 'error', count: 0 });
});
