import { describe, expect, it } from '@jest/globals';
import { matchers, type RunLike } from '../../../matchers';
import { failureOf } from './helpers';

expect.extend(matchers);

/**
 * A refund agent's run: the lookup succeeded; the first refund hit BUSY (an override), the
 * agent retried in a new tool call and that one went through; the email was never answered.
 */
const run: RunLike = {
  terminalState: 'succeeded',
  toolCalls: [
    { id: 'c0', name: 'lookup_order', arguments: { orderId: 'A-1' }, answered: true, operations: [1] },
    {
      id: 'c1',
      name: 'issue_refund',
      arguments: { orderId: 'A-1', amount: 10 },
      answered: true,
      operations: [2],
    },
    {
      id: 'c2',
      name: 'issue_refund',
      arguments: { orderId: 'A-1', amount: 10 },
      answered: true,
      operations: [3],
    },
    { id: 'c3', name: 'send_email', arguments: { to: 'kim' }, answered: false },
    { id: 'c4', name: 'note', arguments: {}, answered: true, error: { code: 'NOTE_TOO_LONG' } },
  ],
  operations: [
    { seq: 1, packageId: 'shop', operationId: 'orders.get', outcome: { kind: 'ok', value: {} } },
    {
      seq: 2,
      packageId: 'shop',
      operationId: 'refunds.create',
      outcome: { kind: 'error', error: { code: 'BUSY', message: 'try again', retryable: true } },
    },
    { seq: 3, packageId: 'shop', operationId: 'refunds.create', outcome: { kind: 'ok', value: {} } },
  ],
};

describe('toHaveCalledTool with an outcome', () => {
  it('reads a call served by the world from its operation, and a plain one from its result', () => {
    expect(run).toHaveCalledTool('lookup_order', { orderId: 'A-1' }, { outcome: 'ok' });
    expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-1' }, { outcome: 'error', code: 'BUSY' });
    expect(run).toHaveCalledTool('issue_refund', undefined, { code: 'BUSY' });
    expect(run).toHaveRequestedTool('send_email', undefined, { outcome: 'unanswered' });
    expect(run).toHaveCalledTool('note', undefined, { outcome: 'error', code: 'NOTE_TOO_LONG' });
    expect(run).not.toHaveCalledTool('lookup_order', undefined, { outcome: 'error' });
    expect(run).not.toHaveCalledTool('issue_refund', undefined, { code: 'NOT_FOUND' });
    expect(run).not.toHaveCalledTool('send_email', undefined, { outcome: 'ok' });
    expect(run).not.toHaveRequestedTool('send_email', undefined, { outcome: 'ok' });
  });

  it('refuses outcome unanswered on the called matchers: a call never run is no call', () => {
    const refusal =
      /asks for outcome "unanswered": a call the agent never ran, which toHaveCalledTool does not count/;
    expect(() => expect(run).toHaveCalledTool('send_email', undefined, { outcome: 'unanswered' })).toThrow(
      refusal,
    );
    // A usage error under .not too: it would pass on every run.
    expect(() =>
      expect(run).not.toHaveCalledTool('send_email', undefined, { outcome: 'unanswered' }),
    ).toThrow(refusal);
    expect(() =>
      expect(run).toHaveCalledToolSequence([{ name: 'send_email', outcome: 'unanswered' }], {
        mode: 'contains',
      }),
    ).toThrow(/expected\[0\]\.outcome asks for outcome "unanswered"[\s\S]*with toHaveRequestedToolSequence/);
    expect(() => expect(run).toNeverCallTools([{ name: 'send_email', outcome: 'unanswered' }])).toThrow(
      /forbidden\[0\]\.outcome asks for outcome "unanswered"/,
    );
    expect(run).toHaveRequestedToolSequence([{ name: 'send_email', outcome: 'unanswered' }], {
      mode: 'contains',
    });
  });

  it('fails when the call ended otherwise, saying how and where that was read', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledTool('lookup_order', { orderId: 'A-1' }, { outcome: 'error', code: 'BUSY' }),
    );
    expect(message).toContain(
      'Expected: a call to "lookup_order" with arguments matching {"orderId": "A-1"} ending error BUSY',
    );
    expect(message).toContain('  0 lookup_order {"orderId": "A-1"} → ok');
    expect(message).toContain('  1 issue_refund {"amount": 10, "orderId": "A-1"} → error BUSY');
    expect(message).toContain(
      'The call to "lookup_order" with matching arguments ended otherwise:\n  step 0: ok (operation shop/orders.get #1)',
    );
  });

  it('counts the matching calls with times', () => {
    expect(run).toHaveCalledTool('issue_refund', undefined, { times: 2 });
    expect(run).toHaveCalledTool('issue_refund', undefined, { outcome: 'ok', times: 1 });
    expect(run).toHaveCalledTool('issue_refund', { amount: 10 }, { times: { min: 1, max: 2 } });
    expect(run).not.toHaveCalledTool('issue_refund', undefined, { times: 1 });
    expect(run).toHaveCalledTool('delete_order', undefined, { times: 0 });
    const message = failureOf(() =>
      expect(run).toHaveCalledTool('issue_refund', undefined, { times: { max: 1 } }),
    );
    expect(message).toContain('Expected: at most 1 call to "issue_refund"');
    expect(message).toContain('Received 4 calls the agent ran, 2 of them such:');
    expect(message).toContain('  4 note {}');
    expect(message).toContain('toolCalls[3] send_email {"to": "kim"}');
    expect(message).toContain('Such calls: step 1, step 2');
  });

  it('rejects an outcome it does not know, a code with outcome ok, bad times and unknown keys', () => {
    expect(() => expect(run).toHaveCalledTool('note', undefined, { outcome: 'failed' as never })).toThrow(
      /options\.outcome must be one of "ok", "error", "unanswered"/,
    );
    expect(() => expect(run).toHaveCalledTool('note', undefined, { outcome: 'ok', code: 'BUSY' })).toThrow(
      /options\.code goes with outcome "error", not "ok"/,
    );
    expect(() => expect(run).toHaveCalledTool('note', undefined, { times: { min: 3, max: 1 } })).toThrow(
      /options\.times admits nothing: min 3 is above max 1/,
    );
    expect(() => expect(run).toHaveCalledTool('note', undefined, { outcomes: 'ok' } as never)).toThrow(
      /options has unknown key "outcomes"; allowed keys: "outcome", "code", "times"/,
    );
    // A usage error stays an error under .not: it never turns into a pass.
    expect(() => expect(run).not.toHaveCalledTool('note', undefined, { times: -1 })).toThrow(
      /options\.times must be an integer ≥ 0/,
    );
  });
});

describe('toHaveCalledToolSequence with outcomes per step', () => {
  it('passes when each step ended as expected', () => {
    expect(run).toHaveCalledToolSequence(
      [
        { name: 'issue_refund', outcome: 'error', code: 'BUSY' },
        { name: 'issue_refund', outcome: 'ok' },
      ],
      { mode: 'ordered' },
    );
  });

  it('fails at the step whose outcome differs, and says how it ended', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence([
        'lookup_order',
        { name: 'issue_refund', outcome: 'ok' },
        'issue_refund',
        'send_email',
        'note',
      ]),
    );
    expect(message).toContain('> 1 issue_refund → ok');
    expect(message).toContain('1 issue_refund {"amount": 10, "orderId": "A-1"} → error BUSY');
    expect(message).toContain(
      'first divergence at step 1: expected "issue_refund" ending ok, received "issue_refund" with {"amount": 10, "orderId": "A-1"} ending error BUSY (operation shop/refunds.create #2)',
    );
  });

  it('points at a namesake whose arguments fit but which ended otherwise', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence(['lookup_order', { name: 'issue_refund', code: 'NOT_FOUND' }]),
    );
    expect(message).toContain('first divergence at step 1: expected "issue_refund"');
    expect(message).toContain(
      '(received step 2 calls "issue_refund" with these arguments, but it ended ok (operation shop/refunds.create #3))',
    );
    expect(message).not.toContain('with other arguments');
  });

  it('leaves a request the agent never ran out of the trajectory, and says so', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence(['lookup_order', { name: 'send_email', outcome: 'ok' }]),
    );
    expect(message).toContain('first divergence at step 1: expected "send_email", received "issue_refund"');
    expect(message).toContain(
      'No call to "send_email" ran: the model requested it, but the agent never ran it (no result went back, no world operation served it).',
    );
    expect(message).toContain('toolCalls[3] send_email {"to": "kim"}');
    expect(run).toHaveRequestedToolSequence([
      'lookup_order',
      'issue_refund',
      'issue_refund',
      'send_email',
      'note',
    ]);
    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund', 'issue_refund', 'note']);
  });
});
