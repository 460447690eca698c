/**
 * Someone once "fixed" a flaky lookup with `jest.retryTimes`: a test that fails and then passes
 * counts as passed, so the flake rate never sees it. The summary says so for every file that
 * sets it.
 */
import { expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { runSupportAgent } from '../../support-agent/agent';
import { OrderStore } from '../../support-agent/tools';

jest.retryTimes(2);

it('tells the customer where an order is', async () => {
  understudy.model.use(
    script()
      .user('Where is order A-1002?')
      .callsTool('lookup_order', { orderId: 'A-1002' })
      .replies('Your rain jacket (order A-1002) is paid and on its way.'),
  );

  const run = await understudy.run(() =>
    runSupportAgent('Where is order A-1002?', { store: new OrderStore() }),
  );

  expect(run.toolCalls[0].result).toMatchObject({ item: 'Rain jacket', status: 'paid' });
  expect(run).toHaveFinalMessage('on its way');
});
