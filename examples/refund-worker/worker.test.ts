/**
 * The refund worker crashes right after its refund went through (the payments service did
 * it, the answer never arrived) and is started again on the same world. With checkpoints and
 * idempotency keys the refund happens once; without the keys the resumed worker refunds twice,
 * and the drill's noDuplicateEffects criterion says so.
 *
 * @understudy-world ./refunds.world.yaml
 */
import { describe, expect, it } from '@jest/globals';
import { type Binding, isCrashError, mockTool, runDrills, script, understudy } from 'jest-understudy';
import { MemoryCheckpoints, type Payments, runRefundWorker } from './worker';

const REQUEST = 'Please refund order A-1001, the backpack arrived torn.';

const refundFlow = script()
  .user(REQUEST)
  .callsTool('lookup_order', { orderId: 'A-1001' })
  .callsTool('issue_refund', { orderId: 'A-1001', amount: 8900 })
  .replies('Order A-1001 is refunded ($89.00).');

/** The payments client, served by the world: a refund's idempotency key goes with the call. */
const paymentsOf = (binding: Binding): Payments => ({
  getOrder: mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'payments', operationId: 'orders.get' },
    input: (id: string) => ({ id }),
  }),
  refund: mockTool(binding, {
    mode: 'async',
    operation: { packageId: 'payments', operationId: 'refunds.create' },
    input: (orderId: string, amount: number, _options?: { idempotencyKey?: string }) => ({ orderId, amount }),
    idempotencyKey: (_orderId, _amount, options) => options?.idempotencyKey,
  }),
});

describe('a crash right after the refund', () => {
  it('with checkpoints and idempotency keys, the resumed worker refunds once', async () => {
    understudy.model.use(refundFlow);
    const checkpoints = new MemoryCheckpoints();

    const result = await runDrills({
      drill: 'refund-survives-crash',
      agent: ({ task, binding }) =>
        runRefundWorker(task.instruction, { thread: 't-1', payments: paymentsOf(binding), checkpoints }),
    });

    expect(result).toHavePassedDrill();
    const [crashed, resumed] = result.trials[0].attempts;
    expect(crashed.terminalState).toBe('crashed');
    expect(isCrashError(crashed.error)).toBe(true);
    expect(crashed.crash?.at).toBe('after payments/refunds.create (operation #2)');
    expect(resumed).toHaveFinalMessage('is refunded');
    // Both attempts are in the evidence: the resumed refund was the same request, replayed.
    expect(result.evidence.map((r) => [r.operationId, r.idempotent?.replayed ?? false])).toEqual([
      ['orders.get', false],
      ['refunds.create', false],
      ['refunds.create', true],
    ]);
    expect(Object.keys(result.state.payments.refunds)).toHaveLength(1);
  });

  it('without idempotency keys, the resumed worker refunds twice and the drill fails', async () => {
    understudy.model.use(refundFlow);
    const checkpoints = new MemoryCheckpoints();

    const result = await runDrills({
      drill: 'refund-survives-crash',
      agent: ({ task, binding }) =>
        runRefundWorker(task.instruction, {
          thread: 't-1',
          payments: paymentsOf(binding),
          checkpoints,
          idempotencyKeys: false,
        }),
    });

    expect(result.verdict).toBe('failed');
    expect(result.reasons).toEqual([
      'no request to payments/refunds.create took effect twice: #2 and #3 with the same input {"orderId":"A-1001","amount":8900}',
    ]);
    expect(Object.keys(result.state.payments.refunds)).toHaveLength(2);
  });

  it('crashes and resumes a plain run on the file world', async () => {
    understudy.model.use(refundFlow);
    const checkpoints = new MemoryCheckpoints();
    const payments = paymentsOf(understudy.world.bind());
    const worker = () => runRefundWorker(REQUEST, { thread: 't-2', payments, checkpoints });

    const first = await understudy.run(worker, {
      crash: { afterOperation: 'payments/refunds.create' },
    });
    expect(first.terminalState).toBe('crashed');
    const second = await understudy.run(worker, { resumeFrom: first });

    expect(second.resumedFrom).toBe(first);
    expect(second).toHaveFinalMessage('is refunded');
    // The model asked for the refund in the first run; the resumed run redid it, as the same request.
    expect(second.toolsCalled).toEqual([]);
    expect(second.operations.map((o) => [o.operationId, o.idempotent?.replayed])).toEqual([
      ['refunds.create', true],
    ]);
    expect(understudy.world.operations.filter((r) => r.operationId === 'refunds.create')).toHaveLength(2);
    expect(Object.keys(understudy.world.state.payments.refunds)).toHaveLength(1);
  });
});
