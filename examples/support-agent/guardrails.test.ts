/**
 * Guardrails of the refund flow, in the matchers a reviewer reads first: which tools the agent
 * may call, with what outcome, in how many steps, and what its trace shows. Tagged, so
 * `understudy record --tag refunds` re-records only this file's tests.
 *
 * @understudy-tags refunds guardrails
 */
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { runSupportAgent } from './agent';
import { REFUND_REQUEST, refundFlow } from './flows';
import { OrderStore } from './tools';

const refund = understudy
  .scenario()
  .withFixtures(refundFlow)
  .withToolFake('orders', () => new OrderStore());

const runRefund = () =>
  refund.executeAgent(({ user, fakes }) => runSupportAgent(user, { store: fakes.orders }), {
    user: REFUND_REQUEST,
  });

describe('the refund flow @refunds', () => {
  it('stays within its tools, each call succeeding, in a bounded number of steps', async () => {
    const run = await runRefund();

    expect(run).toOnlyCallTools(['lookup_order', 'issue_refund', 'send_email']);
    expect(run).toNeverCallTools(['delete_account', { name: 'issue_refund', args: { amount: 99999 } }]);
    expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-1001' }, { outcome: 'ok', times: 1 });
    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund', 'send_email'], {
      // The email's wording may change; the refund's order must not.
      argsBy: { send_email: 'ignore', issue_refund: ['orderId'] },
    });
    expect(run).toHaveStepCount({ max: 4 });
    expect(run).toHaveSpans({ kind: 'tool', count: 3 });
    expect(run).toHaveSpans({ kind: 'tool', status: 'error', count: 0 });
  });

  it('catches an agent that steps outside them', async () => {
    const run = await runRefund();

    // The same run against stricter guardrails: each matcher fails and says which call broke it.
    expect(() => expect(run).toOnlyCallTools(['lookup_order', 'issue_refund'])).toThrow(/send_email/);
    expect(() => expect(run).toNeverCallTools(['issue_refund'])).toThrow(/issue_refund/);
    expect(() => expect(run).toHaveStepCount({ max: 2 })).toThrow();
  });
});
