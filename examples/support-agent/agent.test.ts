import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createAgentHarness, script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { runSupportAgent, SYSTEM_PROMPT } from './agent';
import { REFUND_REQUEST, refundFlow } from './flows';
import { OrderStore } from './tools';

// A fresh in-memory store for every test: what the agent did is checked on it afterwards.
let store: OrderStore;
beforeEach(() => {
  store = new OrderStore();
});

describe('a refund', () => {
  it('looks the order up, refunds it once and emails the customer', async () => {
    understudy.model.use(refundFlow);

    const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store }));

    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund', 'send_email']);
    expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-1001', amount: 8900 });
    expect(run).toHaveFinalMessage('is refunded');
    expect(run).toHaveTerminalState('succeeded');
    expect(store.refunds).toEqual([expect.objectContaining({ orderId: 'A-1001', amount: 8900 })]);
    expect(store.sentEmails).toEqual([expect.objectContaining({ to: 'sam@example.com' })]);
  });

  it('never refunds before the lookup, whatever else happens', async () => {
    understudy.model.use(refundFlow);

    const run = await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store }));

    // ordered: these calls appear in this order, other calls may come between.
    expect(run).not.toHaveCalledToolSequence(['issue_refund', 'lookup_order'], { mode: 'ordered' });
    expect(run).toHaveCalledToolSequence(['lookup_order', 'send_email'], { mode: 'ordered' });
    // unordered: exactly these calls, in any order.
    expect(run).toHaveCalledToolSequence(['send_email', 'lookup_order', 'issue_refund'], {
      mode: 'unordered',
    });
    // contains: at least these calls; a step's args are contained in the call's unless told otherwise.
    expect(run).toHaveCalledToolSequence([{ name: 'issue_refund', args: { amount: 8900 } }], {
      mode: 'contains',
    });
    expect(run).not.toHaveCalledToolSequence([{ name: 'issue_refund', args: { amount: 8900 } }], {
      mode: 'contains',
      args: 'exact',
    });
  });
});

describe('parallel tool calls', () => {
  it.each([{ stream: false }, { stream: true }])(
    'looks two orders up at once (stream: $stream)',
    async ({ stream }) => {
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
        runSupportAgent('Where are my orders A-1001 and A-1002?', { store, stream }),
      );

      expect(run).toHaveCalledToolSequence([
        { name: 'lookup_order', args: { orderId: 'A-1001' } },
        { name: 'lookup_order', args: { orderId: 'A-1002' } },
      ]);
      expect(run.toolCalls.map((call) => call.result)).toEqual([
        expect.objectContaining({ item: 'Trail backpack' }),
        expect.objectContaining({ item: 'Rain jacket' }),
      ]);
      expect(run.modelCalls.map((call) => call.streamed)).toEqual([stream, stream]);
      expect(run).toHaveFinalMessage(/paid and on their way/);
    },
  );
});

// Longer exchanges live in a committed file and are replayed through a harness.
describe('refunds the store refuses (fixture file)', () => {
  const harness = createAgentHarness({
    agent: (question: string) => runSupportAgent(question, { store }),
    fixtures: join(__dirname, 'fixtures/refund-denied.fixture.json'),
  });
  afterEach(() => harness.reset());
  afterAll(() => harness.close());

  it('explains that an order was already refunded', async () => {
    const run = await harness.run('Hi, please refund order A-1003.');

    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund']);
    expect(run.toolCalls[1].result).toEqual({ error: 'order A-1003 was already refunded' });
    expect(run).toHaveFinalMessage('already refunded');
    expect(store.refunds).toEqual([]);
  });

  it('does not refund more than the customer paid', async () => {
    const run = await harness.run('Could you refund $200 on order A-1001?');

    expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-1001', amount: 20000 });
    expect(run.toolCalls[1].result).toEqual({ error: 'cannot refund 20000 cents: the customer paid 8900' });
    expect(run).toHaveFinalMessage('at most $89.00');
    expect(store.get('A-1001')?.status).toBe('paid');
  });

  it('takes extra fixtures for one run (dropped again by reset)', async () => {
    const run = await harness.run({
      input: 'Can you refund order A-9999?',
      fixtures: script()
        .user('refund order A-9999')
        .callsTool('lookup_order', { orderId: 'A-9999' })
        .replies('I could not find order A-9999. Could you check the number?'),
    });

    expect(run.toolCalls[0].result).toEqual({ error: 'order A-9999 does not exist' });
    expect(run).toHaveTerminalState('succeeded');
  });
});

describe('provider errors', () => {
  it('rides out a 429: the SDK honours retry-after and retries by itself', async () => {
    understudy.model.use(
      script()
        .user('Where is order A-1002?')
        .fails({ status: 429, message: 'Rate limited', retryAfter: 0 })
        .callsTool('lookup_order', { orderId: 'A-1002' })
        .replies('Your rain jacket (order A-1002) is paid and on its way.'),
    );

    const run = await understudy.run(() => runSupportAgent('Where is order A-1002?', { store }));

    expect(run).toHaveTerminalState('succeeded');
    expect(run.modelCalls.map((call) => call.error?.status ?? 200)).toEqual([429, 200, 200]);
  });

  it.each([
    { status: 500, error: OpenAI.InternalServerError, requests: 3 }, // first try + the SDK's 2 retries
    { status: 400, error: OpenAI.BadRequestError, requests: 1 }, // not retryable
  ])('surfaces a $status the SDK gives up on', async ({ status, error, requests }) => {
    understudy.model.use(
      script().user('Where is order A-1002?').fails({ status, message: 'Upstream trouble', retryAfter: 0 }),
    );

    const run = await understudy.run(() => runSupportAgent('Where is order A-1002?', { store }));

    expect(run).toHaveTerminalState('errored');
    expect(run.error).toBeInstanceOf(error);
    expect(run.error).toMatchObject({ status, message: expect.stringContaining('Upstream trouble') });
    expect(understudy.model.calls).toHaveLength(requests);
  });
});

describe('what the agent sent', () => {
  it('sends the system prompt, the question and the three tools', async () => {
    understudy.model.use(script().user('Hello').replies('Hi! How can I help with your order?'));

    await understudy.run(() => runSupportAgent('Hello', { store }));

    const [call] = understudy.model.calls;
    expect(call.conversation.messages[0].text).toBe(SYSTEM_PROMPT);
    expect(call.conversation.messages[1]).toEqual({ role: 'user', text: 'Hello' });
    expect(call.conversation.tools.map((tool) => tool.name)).toEqual([
      'lookup_order',
      'issue_refund',
      'send_email',
    ]);
    expect(call.request).toMatchObject({ model: 'gpt-4o-mini' });
  });

  it('reports tool results back to the model', async () => {
    understudy.model.use(refundFlow);

    await understudy.run(() => runSupportAgent(REFUND_REQUEST, { store }));

    const afterRefund = understudy.model.calls[2].conversation.messages.at(-1);
    expect(afterRefund).toMatchObject({ role: 'tool', text: expect.stringContaining('"refundId":"rf_1"') });
  });
});
