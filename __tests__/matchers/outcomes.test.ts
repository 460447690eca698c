import { describe, expect, it } from '@jest/globals';
import { matchers, type RunLike } from '../../matchers';
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
    expect(run).toHaveCalledTool('send_email', undefined, { outcome: 'unanswered' });
    expect(run).toHaveCalledTool('note', undefined, { outcome: 'error', code: 'NOTE_TOO_LONG' });
    expect(run).not.toHaveCalledTool('lookup_order', undefined, { outcome: 'error' });
    expect(run).not.toHaveCalledTool('issue_refund', undefined, { code: 'NOT_FOUND' });
    expect(run).not.toHaveCalledTool('send_email', undefined, { outcome: 'ok' });
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
    expect(message).toContain('Received 5 calls, 2 of them such:');
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
      expect(run).toHaveCalledToolSequence(['lookup_order', { name: 'send_email', outcome: 'ok' }]),
    );
    expect(message).toContain('first divergence at step 1: expected "send_email", received "issue_refund"');
    expect(message).toContain(
      '(received step 3 calls "send_email" with these arguments, but it ended unanswered (no later request carried its result))',
    );
    expect(message).not.toContain('with other arguments');
  });
});
