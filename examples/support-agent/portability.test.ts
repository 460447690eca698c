/**
 * The support agent on every provider: fixtures are provider-neutral, so one refund flow
 * replays on OpenAI Chat, OpenAI Responses, Anthropic and Gemini, and acrossProviders checks
 * the agent does the same on each.
 */
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { REFUND_REQUEST, refundFlow } from './flows';
import { runPortableSupportAgent } from './portable-agent';
import { OrderStore } from './tools';

const SEQUENCE = ['lookup_order', 'issue_refund', 'send_email'];

describe('the support agent across providers', () => {
  it('refunds the same way on every protocol', async () => {
    understudy.model.use(refundFlow);

    const matrix = await understudy.acrossProviders(async ({ protocol }) => {
      const store = new OrderStore();
      const run = await understudy.run(() => runPortableSupportAgent(REFUND_REQUEST, { protocol, store }));
      expect(run).toHaveCalledToolSequence(SEQUENCE);
      expect(store.refunds).toEqual([expect.objectContaining({ orderId: 'A-1001', amount: 8900 })]);
      return run;
    });

    expect(matrix.consistent).toBe(true);
    expect(matrix.results.map((r) => [r.protocol, r.trajectory.map((s) => s.name), r.terminalState])).toEqual(
      [
        ['openai.chat', SEQUENCE, 'succeeded'],
        ['openai.responses', SEQUENCE, 'succeeded'],
        ['anthropic.messages', SEQUENCE, 'succeeded'],
        ['gemini.generateContent', SEQUENCE, 'succeeded'],
      ],
    );
    // Each execution's requests went out on its own protocol.
    expect(
      matrix.results.map((r) => [...new Set(r.runs.flatMap((run) => run.modelCalls.map((c) => c.protocol)))]),
    ).toEqual([['openai.chat'], ['openai.responses'], ['anthropic.messages'], ['gemini.generateContent']]);
  });

  it('reports where one provider diverges', async () => {
    understudy.model.use(refundFlow);

    // A provider-specific bug: on Anthropic the agent stops after two steps, before the email.
    const matrix = await understudy.acrossProviders(
      async ({ protocol }) =>
        understudy.run(() =>
          runPortableSupportAgent(REFUND_REQUEST, {
            protocol,
            store: new OrderStore(),
            maxSteps: protocol === 'anthropic.messages' ? 2 : 8,
          }),
        ),
      { divergence: 'report' },
    );

    expect(matrix.consistent).toBe(false);
    expect(matrix.divergences).toEqual([
      expect.objectContaining({
        protocol: 'anthropic.messages',
        reference: 'openai.chat',
        at: 'tool call 3',
        expected: expect.objectContaining({ name: 'send_email' }),
        received: undefined,
      }),
    ]);
    expect(matrix.table).toMatch(/anthropic\.messages .*✗ diverges: tool call 3/);
  });

  it('no false green: an agent that ignores the protocol it is given fails', async () => {
    understudy.model.use(refundFlow);

    await expect(
      understudy.acrossProviders(async () =>
        understudy.run(() =>
          runPortableSupportAgent(REFUND_REQUEST, { protocol: 'openai.chat', store: new OrderStore() }),
        ),
      ),
    ).rejects.toMatchObject({
      code: 'PORTABILITY_FAILED',
      message: expect.stringContaining(
        'the agent was given anthropic.messages but its model requests went to openai.chat',
      ),
    });
  });
});
