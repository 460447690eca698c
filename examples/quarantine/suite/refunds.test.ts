/**
 * Refund tests of the support agent (../../support-agent), one of them flaky on purpose: it
 * leaves out `{ store }`, so it shares the agent module's default order store with another test
 * that does too, and it hard-codes the id of the email it expects. In file order it passes; when
 * `jest --randomize` runs the rain-jacket test first, that test's email took `msg_1`.
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { runSupportAgent } from '../../support-agent/agent';
import { REFUND_REQUEST, refundFlow } from '../../support-agent/flows';
import { OrderStore } from '../../support-agent/tools';

const RAIN_JACKET = 'Please refund order A-1002, the zip broke.';

describe('refunds', () => {
  // Quarantined (../jest.config.js) until it gets a store of its own.
  it('confirms the refund by email', async () => {
    understudy.model.use(refundFlow);

    const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST));

    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund', 'send_email']);
    expect(run.toolCalls[2].result).toEqual({ messageId: 'msg_1' });
  });

  // Shares the default store too, but asserts nothing another test can change.
  it('refunds the rain jacket', async () => {
    understudy.model.use(
      script()
        .user(RAIN_JACKET)
        .callsTool('lookup_order', { orderId: 'A-1002' })
        .callsTool('issue_refund', { orderId: 'A-1002', amount: 12900, reason: 'broken zip' })
        .callsTool('send_email', {
          to: 'kim@example.com',
          subject: 'Your refund for order A-1002',
          body: 'We refunded $129.00 for your Rain jacket.',
        })
        .replies('Order A-1002 is refunded ($129.00).'),
    );

    const run = await understudy.run(() => runSupportAgent(RAIN_JACKET));

    expect(run.toolCalls[1].result).toMatchObject({ orderId: 'A-1002', amount: 12900 });
    expect(run.toolCalls[2].result).toEqual({ messageId: expect.stringMatching(/^msg_\d+$/) });
  });

  // Was flaky the same way; it has its own store now, and stays quarantined until the
  // summary says it passed `readyAfter` runs in a row.
  it('explains that an order was already refunded', async () => {
    const store = new OrderStore();
    understudy.model.use(
      script()
        .user('Please refund order A-1003.')
        .callsTool('lookup_order', { orderId: 'A-1003' })
        .callsTool('issue_refund', { orderId: 'A-1003', amount: 4500, reason: 'customer asked' })
        .replies('Order A-1003 was already refunded, so there is nothing more to refund.'),
    );

    const run = await understudy.run(() => runSupportAgent('Please refund order A-1003.', { store }));

    expect(run.toolCalls[1].result).toEqual({ error: 'order A-1003 was already refunded' });
    expect(run).toHaveFinalMessage('already refunded');
    expect(store.refunds).toEqual([]);
  });
});
