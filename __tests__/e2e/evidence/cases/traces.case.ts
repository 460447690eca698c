import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { runSupportAgent } from '../../../../examples/support-agent/agent';

const refund = () =>
  script()
    .user('refund order A-1001')
    .callsTool('lookup_order', { orderId: 'A-1001' })
    .callsTool('issue_refund', { orderId: 'A-1001', amount: 8900, reason: 'arrived damaged' })
    .replies('Order A-1001 is refunded.');

describe('refunds', () => {
  describe('when the order arrived damaged', () => {
    it('checks the customer before refunding', async () => {
      understudy.model.use(refund());
      // The key must never reach the trace.
      const run = await understudy.run(() =>
        runSupportAgent('Please refund order A-1001, my key is sk-proj-abcdefghijklmnop1234567890'),
      );
      expect(run).toHaveCalledToolSequence(['lookup_order', 'verify_customer', 'issue_refund']);
    });

    it('passes without a trace', async () => {
      understudy.model.use(refund());
      const run = await understudy.run(() => runSupportAgent('Please refund order A-1001'));
      expect(run).toHaveTerminalState('succeeded');
    });
  });

  describe('with seed data a hook cannot load', () => {
    beforeEach(async () => {
      understudy.model.use(script().user('warm up').replies('ready'));
      await understudy.run(() => runSupportAgent('warm up'), { input: 'warm up' });
      throw new Error('seed data missing for A-1001');
    });

    it('never runs its body', () => {
      expect(true).toBe(true);
    });
  });

  describe('with an afterEach check', () => {
    let answer = '';
    afterEach(() => {
      expect(answer).toContain('refunded');
    });

    it('answers without a run', async () => {
      understudy.model.use(script().user('refund order A-1002').replies('I cannot help.'));
      answer = await runSupportAgent('refund order A-1002');
    });
  });
});
