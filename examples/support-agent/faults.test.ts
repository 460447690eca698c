/**
 * The support agent as a scenario, and every failure branch of its refund flow: a fault sweep
 * makes each tool call the agent made fail in turn, with each error the tool declares and a
 * timeout, and checks the agent still tells the customer the truth.
 */
import { describe, expect, it } from '@jest/globals';
import { type Fixture, type ScenarioRun, understudy } from 'jest-understudy';
import { runSupportAgent } from './agent';
import { REFUND_REQUEST, refundFlow } from './flows';
import { OrderStore } from './tools';

// The errors the store's tools can fail with in production: what the sweep answers them with.
const ORDER_ERRORS = {
  lookupOrder: [{ code: 'ORDERS_UNAVAILABLE', status: 503, message: 'the order database is unavailable' }],
  issueRefund: [{ code: 'CARD_DECLINED', status: 402, message: 'the card network declined the refund' }],
  sendEmail: [{ code: 'MAILBOX_FULL', status: 452, message: "the customer's mailbox is full" }],
};

// When a tool reports an error the model apologises instead of going on (registered first, so it wins).
const onToolError: Fixture = {
  id: 'a tool failed',
  match: { toolResultContains: '"error"' },
  response: {
    content: 'Sorry, something went wrong on our side and I could not finish that. Please try again later.',
  },
};

// Shared by every test: each `with…` returns a new scenario, this one never changes.
const refund = understudy
  .scenario()
  .withFixtures([onToolError])
  .withFixtures(refundFlow)
  .withToolFake('orders', () => new OrderStore(), { errors: ORDER_ERRORS });

/** What must hold on every branch: the customer is never told about a refund that did not happen. */
function checkHonest(run: ScenarioRun<string>): void {
  const store = run.fakes.orders as OrderStore;
  expect(run).toHaveTerminalState('succeeded');
  expect(store.refunds.length).toBeLessThanOrEqual(1);
  if (store.refunds.length === 0) {
    expect(run.finalMessage).not.toMatch(/is refunded/);
    expect(store.sentEmails).toEqual([]);
  }
}

describe('the refund scenario', () => {
  it('looks the order up, refunds it and emails the customer', async () => {
    const run = await refund.executeAgent(
      ({ user, fakes }) => runSupportAgent(user, { store: fakes.orders }),
      {
        user: REFUND_REQUEST,
      },
    );

    expect(run.toolsCalled).toEqual(['lookup_order', 'issue_refund', 'send_email']);
    // The fake's calls are the run's operations, each linked to the model's tool call.
    expect(run.operations.map((o) => [o.packageId, o.operationId, o.outcome.kind])).toEqual([
      ['orders', 'lookupOrder', 'ok'],
      ['orders', 'issueRefund', 'ok'],
      ['orders', 'sendEmail', 'ok'],
    ]);
    expect(run.operations.map((o) => o.toolCallId)).toEqual(run.toolCalls.map((c) => c.id));
    expect((run.fakes.orders as OrderStore).refunds).toEqual([
      expect.objectContaining({ orderId: 'A-1001', amount: 8900 }),
    ]);
    checkHonest(run);
  });

  it('starts every run from a fresh store', async () => {
    const agent = ({ user, fakes }: { user: string; fakes: Record<string, OrderStore> }) =>
      runSupportAgent(user, { store: fakes.orders });
    const first = await refund.executeAgent(agent, { user: REFUND_REQUEST });
    const second = await refund.executeAgent(agent, { user: REFUND_REQUEST });

    // The second refund would be refused ("already refunded") if the store were shared.
    expect(second.toolsCalled).toEqual(first.toolsCalled);
    expect((second.fakes.orders as OrderStore).refunds).toHaveLength(1);
    expect(second.fakes.orders).not.toBe(first.fakes.orders);
  });
});

describe('the refund flow under every declared fault', () => {
  it('handles a failure of each tool call', async () => {
    const sweep = await understudy.sweep(async () => {
      const run = await refund.executeAgent(
        ({ user, fakes }) => runSupportAgent(user, { store: fakes.orders }),
        {
          user: REFUND_REQUEST,
        },
      );
      checkHonest(run);
    });

    // Three calls, each with its declared error and a timeout.
    expect(sweep.variants.map((v) => v.id)).toEqual([
      'lookup_order#1 ORDERS_UNAVAILABLE',
      'lookup_order#1 TIMEOUT',
      'issue_refund#1 CARD_DECLINED',
      'issue_refund#1 TIMEOUT',
      'send_email#1 MAILBOX_FULL',
      'send_email#1 TIMEOUT',
    ]);
    expect(sweep).toHandleAllFaults();
  });

  it('finds the branch an agent that hides tool errors gets wrong', async () => {
    // This agent tells the model every tool call worked: after a declined refund the model goes on
    // with the happy path and tells the customer the refund went through.
    const hidesErrors = (store: OrderStore) =>
      new Proxy(store, {
        get(target, key) {
          const value = Reflect.get(target, key);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            try {
              return value.apply(target, args);
            } catch {
              return { ok: true };
            }
          };
        },
      });
    const sweep = await understudy.sweep(async () => {
      const run = await refund.executeAgent(
        ({ user, fakes }) => runSupportAgent(user, { store: hidesErrors(fakes.orders) }),
        { user: REFUND_REQUEST },
      );
      checkHonest(run);
    });

    expect(sweep.unhandled.map((v) => v.id)).toEqual([
      'issue_refund#1 CARD_DECLINED',
      'issue_refund#1 TIMEOUT',
    ]);
    expect(sweep.unhandled[0].reasons.join('\n')).toMatch(/is refunded/);
    expect(() => expect(sweep).toHandleAllFaults()).toThrow(/does not handle 2 of 6 faults/);
    // A hidden lookup or email failure does no harm here: the refund itself still went through.
    expect(sweep).toHandleAllFaults({ except: ['issue_refund'] });
  });
});
