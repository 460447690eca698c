/**
 * Fault sweeps from the installed package: every call of a passing run fails in turn with each
 * error its operation declares and a timeout; the agent that handles them passes
 * toHandleAllFaults, the one that does not fails it, naming each branch.
 * @understudy-world ./pyramid-runs.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { mockTool, script, understudy } = require('jest-understudy');
const { toolLoop } = require('./pyramid-runs-agent');

const onToolError = {
  match: { toolResultContains: '"error"' },
  response: { content: 'Sorry, I could not refund A-1 right now.' },
};
const refundFlow = script()
  .user('Refund order A-1')
  .callsTool('get_order', { id: 'A-1' })
  .callsTool('refund', { orderId: 'A-1', amount: 500 })
  .replies('Refunded A-1.');

const desk = (binding) => ({
  get_order: mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'desk', operationId: 'orders.get' },
  }),
  refund: mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'desk', operationId: 'refunds.create' },
  }),
});

const refund = understudy.scenario().withFixtures([onToolError]).withFixtures(refundFlow);

/** The test body the sweep runs again per fault: the customer is told the truth. */
const body = (onToolErrorMode) => async () => {
  const run = await refund.executeAgent(
    ({ user, binding }) => toolLoop({ user, tools: desk(binding), onToolError: onToolErrorMode }),
    { user: 'Refund order A-1' },
  );
  expect(run).toHaveTerminalState('succeeded');
  const refunds = Object.keys(run.world.state.desk.refunds);
  if (refunds.length === 0) expect(run.finalMessage).not.toContain('Refunded');
};

it('an agent that reports tool errors to the model handles every fault', async () => {
  const sweep = await understudy.sweep(body('report'));
  expect(sweep.variants.map((v) => v.id)).toEqual([
    'get_order#1 NOT_FOUND',
    'get_order#1 TIMEOUT',
    'refund#1 CARD_DECLINED',
    'refund#1 TIMEOUT',
  ]);
  expect(sweep).toHandleAllFaults();
});

it('no false green: an agent that throws on a tool error fails toHandleAllFaults', async () => {
  const sweep = await understudy.sweep(body('throw'));
  expect(sweep).toHandleAllFaults();
});

it('the unhandled variants of a sweep do not fail the test by themselves', async () => {
  const sweep = await understudy.sweep(body('throw'));
  expect(sweep.unhandled).toHaveLength(4);
  expect(sweep.handled).toEqual([]);
  // Each failing variant keeps its run and a trace of it.
  expect(sweep.unhandled[2].runs[0].error).toMatchObject({ code: 'CARD_DECLINED' });
  expect(sweep.unhandled[2].trace.length).toBeGreaterThan(0);
});

it('sweeps a drill: the variants that break a criterion name it', async () => {
  understudy.model.use([onToolError]);
  understudy.model.use(
    script()
      .user('Refund order A-1.')
      .callsTool('refund', { orderId: 'A-1', amount: 500 })
      .replies('Refunded A-1.'),
  );
  const sweep = await understudy.sweep({
    drill: 'refund-a1',
    agent: ({ task, binding }) => toolLoop({ user: task.instruction, tools: desk(binding) }),
  });
  expect(sweep.unhandled.map((v) => v.id)).toEqual(['refund#1 CARD_DECLINED', 'refund#1 TIMEOUT']);
  expect(sweep.unhandled[0].criteria.map((c) => c.description)).toEqual([
    expect.stringContaining('desk/refunds.create'),
  ]);
  // A refund the card network declines cannot pass this drill: it is excused by name.
  expect(sweep).toHandleAllFaults({ except: ['refund'] });
});

it('refuses an exception that names no fault of the sweep', async () => {
  const sweep = await understudy.sweep(body('report'));
  expect(() => expect(sweep).toHandleAllFaults({ except: ['refund:NOPE'] })).toThrow(
    'names no fault of the sweep: "refund:NOPE"',
  );
});

it('refuses to judge faults against a baseline that fails', async () => {
  await expect(
    understudy.sweep(async () => {
      await body('report')();
      expect('the baseline').toBe('failing');
    }),
  ).rejects.toMatchObject({
    code: 'SWEEP_BASELINE_FAILED',
    message: expect.stringContaining('the baseline (the body without any fault) did not pass'),
  });
});

it('no false green: a sweep that tried no fault fails toHandleAllFaults', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const sweep = await understudy.sweep(() => understudy.run(() => toolLoop({ user: 'hi', tools: {} })));
  expect(sweep).toHandleAllFaults();
});
