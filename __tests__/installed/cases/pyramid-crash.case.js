/**
 * Crash and resume from the installed package: a run stops dead after an operation or at a
 * model request, the world keeps what it did, the agent starts again on it, and
 * noDuplicateEffects tells a resumed request from a repeated one.
 * @understudy-world ./pyramid-runs.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { isCrashError, mockTool, runDrills, script, understudy } = require('jest-understudy');
const { toolLoop } = require('./pyramid-runs-agent');

const refundFlow = () =>
  script()
    .user('Refund order A-1.')
    .callsTool('refund', { orderId: 'A-1', amount: 500 })
    .replies('Refunded A-1.');

/** The desk's refund tool; `key(attempt)` is the idempotency key the agent sends (none when undefined). */
const refundTool = (binding, key) =>
  mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'desk', operationId: 'refunds.create' },
    input: (args) => ({ ...args, ...(key !== undefined && { requestId: key }) }),
  });

it('cuts the run off after the operation: the agent never sees the answer', async () => {
  understudy.model.use(refundFlow());
  let answered = false;
  const refund = refundTool(understudy.world.bind());
  const run = await understudy.run(
    async () => {
      await refund({ orderId: 'A-1', amount: 500 });
      answered = true; // a dead process writes nothing after the call
    },
    { crash: { afterOperation: 'desk/refunds.create' } },
  );
  expect(run.terminalState).toBe('crashed');
  expect(isCrashError(run.error)).toBe(true);
  expect(run.error.name).toBe('CrashError');
  expect(run.crash).toEqual({ at: 'after desk/refunds.create (operation #1)', operation: 1 });
  expect(answered).toBe(false);
  // The effect stays in the world.
  expect(Object.keys(understudy.world.state.desk.refunds)).toHaveLength(1);
});

it('crashes at a model request, which is never answered', async () => {
  understudy.model.use(refundFlow());
  const binding = understudy.world.bind();
  const run = await understudy.run(
    () => toolLoop({ user: 'Refund order A-1.', tools: { refund: refundTool(binding) } }),
    {
      crash: { atStep: 2 },
    },
  );
  expect(run.crash).toEqual({ at: 'at step 2 (model request 2)', step: 2 });
  expect(run.toolsCalled).toEqual(['refund']);
});

it('a drill with a checkpoint and a stable key passes noDuplicateEffects across the crash', async () => {
  understudy.model.use(refundFlow());
  const result = await runDrills({
    drill: 'refund-once',
    agent: ({ task, binding }) =>
      toolLoop({ user: task.instruction, tools: { refund: refundTool(binding, 'refund-A-1') } }),
  });
  expect(result).toHavePassedDrill();
  expect(result.trials[0].attempts.map((r) => r.terminalState)).toEqual(['crashed', 'succeeded']);
  expect(result.evidence.map((r) => r.idempotent?.replayed ?? false)).toEqual([false, true]);
});

it('no false green: a fresh key per attempt is still the same request done twice', async () => {
  understudy.model.use(refundFlow());
  const result = await runDrills({
    drill: 'refund-once',
    agent: ({ task, binding, attempt }) =>
      toolLoop({ user: task.instruction, tools: { refund: refundTool(binding, `refund-${attempt}`) } }),
  });
  expect(result).toHavePassedDrill();
});

it('no false green: a crash that never comes fails the test', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  await understudy.run(() => toolLoop({ user: 'hi', tools: {} }), {
    crash: { afterOperation: 'desk/refunds.create' },
  });
});

it('refuses to resume a run that did not crash, and a crash plan that is not one', async () => {
  understudy.model.use(script().user('hi').replies('hello'));
  const run = await understudy.run(() => toolLoop({ user: 'hi', tools: {} }));
  await expect(understudy.run(async () => {}, { resumeFrom: run })).rejects.toThrow(
    "resumeFrom must be a run that crashed (a run given a crash fault), but its terminal state is 'succeeded'",
  );
  await expect(understudy.run(async () => {}, { crash: { atStep: 0 } })).rejects.toThrow(
    'understudy.run(fn, { crash }): expected atStep: an integer ≥ 1 (the n-th model request of the run), received {"atStep":0}',
  );
});
