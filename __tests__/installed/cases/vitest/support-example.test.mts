/**
 * The support agent example (examples/support-agent, copied beside this file as ./support) under
 * Vitest: its agent, its tools and its scripted flows, as its Jest tests run them. An agent wired
 * to the wrong order store must fail the trajectory matchers.
 */
import { script, understudy } from 'jest-understudy';
import { beforeEach, describe, expect, it } from 'vitest';
import { runSupportAgent } from './support/agent';
import { REFUND_REQUEST, refundFlow } from './support/flows';
import { OrderStore } from './support/tools';

let store: OrderStore;
beforeEach(() => {
  store = new OrderStore();
});

/** What a good refund is, in the matchers, in the tools' results and on the store the test owns. */
function expectRefund(run: Awaited<ReturnType<typeof understudy.run>>) {
  expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund', 'send_email']);
  expect(run).toHaveCalledTool(
    'issue_refund',
    { orderId: 'A-1001', amount: 8900 },
    { outcome: 'ok', times: 1 },
  );
  // The agent hands a tool's error to the model as its result: no call may have answered with one.
  const errors = run.toolCalls.flatMap((call) => {
    const result = call.result as { error?: string } | null;
    return typeof result === 'object' && result?.error ? [`${call.name}: ${result.error}`] : [];
  });
  expect(errors.join('; ')).toBe('');
  expect(run).toHaveFinalMessage('is refunded');
  expect(run).toHaveTerminalState('succeeded');
  expect(store.refunds).toEqual([expect.objectContaining({ orderId: 'A-1001', amount: 8900 })]);
  expect(store.sentEmails).toEqual([expect.objectContaining({ to: 'sam@example.com' })]);
}

describe('a refund', () => {
  it.each([{ stream: false }, { stream: true }])(
    'looks the order up, refunds it once and emails the customer (stream: $stream)',
    async ({ stream }) => {
      understudy.model.use(refundFlow);

      const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store, stream }));

      expectRefund(run);
      expect(run.modelCalls.map((call) => call.streamed)).toEqual([stream, stream, stream, stream]);
    },
  );

  it('never refunds before the lookup, and stays within its tools', async () => {
    understudy.model.use(refundFlow);

    const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store }));

    expect(run).not.toHaveCalledToolSequence(['issue_refund', 'lookup_order'], { mode: 'ordered' });
    expect(run).toOnlyCallTools(['lookup_order', 'issue_refund', 'send_email']);
    expect(run).toNeverCallTools(['delete_account', { name: 'issue_refund', args: { amount: 99999 } }]);
    expect(run).toHaveStepCount({ max: 4 });
  });

  it('an agent wired to another (empty) order store fails the refund', async () => {
    understudy.model.use(refundFlow);

    const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store: new OrderStore([]) }));

    expectRefund(run);
  });
});

describe('parallel tool calls', () => {
  it('looks two orders up at once', async () => {
    understudy.model.use(
      script()
        .user('Where are my orders A-1001 and A-1002?')
        .callsTools([
          { name: 'lookup_order', args: { orderId: 'A-1001' } },
          { name: 'lookup_order', args: { orderId: 'A-1002' } },
        ])
        .replies('Both orders, the backpack and the rain jacket, are paid and on their way.'),
    );

    const run = await understudy.run(() =>
      runSupportAgent('Where are my orders A-1001 and A-1002?', { store }),
    );

    expect(run).toHaveCalledToolSequence([
      { name: 'lookup_order', args: { orderId: 'A-1001' } },
      { name: 'lookup_order', args: { orderId: 'A-1002' } },
    ]);
    expect(run.toolCalls.map((call) => call.result)).toEqual([
      expect.objectContaining({ item: 'Trail backpack' }),
      expect.objectContaining({ item: 'Rain jacket' }),
    ]);
    expect(run).toHaveFinalMessage(/paid and on their way/);
  });
});
