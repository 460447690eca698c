import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const run = runOf([
  ['lookup_order', { orderId: 'A-1' }],
  ['delete_order', { orderId: 'A-1' }],
  ['issue_refund', { orderId: 'A-1', amount: 0 }],
]);

describe('toOnlyCallTools', () => {
  it('passes when every call is allowed, fails naming the first one that is not', () => {
    expect(run).toOnlyCallTools(['lookup_order', 'delete_order', 'issue_refund', 'send_email']);
    expect(runOf([])).toOnlyCallTools([]);
    const message = failureOf(() => expect(run).toOnlyCallTools(['lookup_order', 'issue_refund']));
    expect(message).toContain('Allowed: "lookup_order", "issue_refund"');
    expect(message).toContain('Received 3 calls, 1 not allowed:');
    expect(message).toContain('> 1 delete_order {"orderId": "A-1"}   ✗ not allowed');
    expect(message).toContain('  0 lookup_order {"orderId": "A-1"}\n');
    expect(message).toContain('first call outside the allowed tools at step 1: "delete_order"');
  });

  it('allows a tool only with the arguments given', () => {
    expect(run).not.toOnlyCallTools([
      'lookup_order',
      'delete_order',
      { name: 'issue_refund', args: { amount: 10 } },
    ]);
  });

  it('.not fails when every call was allowed', () => {
    expect(
      failureOf(() => expect(run).not.toOnlyCallTools(['lookup_order', 'delete_order', 'issue_refund'])),
    ).toContain('but every call was allowed');
  });
});

describe('toNeverCallTools', () => {
  it('fails naming the forbidden call and the entry it matches', () => {
    expect(run).toNeverCallTools(['send_email', { name: 'issue_refund', args: { amount: 10 } }]);
    const message = failureOf(() =>
      expect(run).toNeverCallTools([
        'send_email',
        { name: 'issue_refund', args: { amount: 0 } },
        'delete_order',
      ]),
    );
    expect(message).toContain('Received 3 calls, 2 forbidden:');
    expect(message).toContain('> 1 delete_order {"orderId": "A-1"}   ✗ forbidden (2)');
    expect(message).toContain('> 2 issue_refund {"amount": 0, "orderId": "A-1"}   ✗ forbidden (1)');
    expect(message).toContain(
      'first forbidden call at step 1: "delete_order" matches forbidden[2] delete_order',
    );
  });

  it('.not needs a forbidden call', () => {
    expect(run).not.toNeverCallTools(['delete_order']);
    expect(failureOf(() => expect(runOf([])).not.toNeverCallTools(['delete_order']))).toContain(
      'but it made no tool calls',
    );
  });

  it('rejects a list that is not one', () => {
    expect(() => expect(run).toNeverCallTools('delete_order' as never)).toThrow(
      /expected value must be an array of tool names or \{ name, args \} objects/,
    );
  });
});
