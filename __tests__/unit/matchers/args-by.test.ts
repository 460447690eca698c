import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const run = runOf([
  ['search', { q: 'refund policy for damaged goods', page: 3 }],
  ['refund', { orderId: 'A-1001', amount: 89.004, currency: 'EUR', requestId: 'r-77' }],
]);

describe('toHaveCalledToolSequence with argsBy (per-tool argument comparison)', () => {
  it('ignores one tool, compares another by a function', () => {
    const steps = [
      { name: 'search', args: { q: 'whatever the model wrote' } },
      { name: 'refund', args: { orderId: 'A-1001', amount: 89 } },
    ];
    const cents = (a: { amount: number }, b: { amount: number }) =>
      Math.round(a.amount * 100) === Math.round(b.amount * 100);
    expect(run).toHaveCalledToolSequence(steps, {
      argsBy: {
        search: 'ignore',
        refund: (a, b) => a.orderId === b.orderId && Math.abs(a.amount - b.amount) < 0.01,
      },
    });
    // Without the override, subset comparison fails on both.
    expect(run).not.toHaveCalledToolSequence(steps);
    // The function decides: a wrong amount fails even though the other keys agree.
    expect(run).not.toHaveCalledToolSequence(
      [steps[0], { name: 'refund', args: { orderId: 'A-1001', amount: 12 } }],
      { argsBy: { search: 'ignore', refund: cents } },
    );
  });

  it('compares only the named arguments when given a list', () => {
    const expected = [
      'search',
      { name: 'refund', args: { orderId: 'A-1001', currency: 'EUR', amount: 1, requestId: 'other' } },
    ];
    expect(run).toHaveCalledToolSequence(expected, { argsBy: { refund: ['orderId', 'currency'] } });
    expect(run).not.toHaveCalledToolSequence(
      ['search', { name: 'refund', args: { orderId: 'A-1002', currency: 'EUR' } }],
      { argsBy: { refund: ['orderId', 'currency'] } },
    );
  });

  it('takes an args mode per tool, overriding `args` for that tool only', () => {
    // exact for search fails (page differs), while refund still compares as a subset.
    expect(run).not.toHaveCalledToolSequence(
      [
        { name: 'search', args: { q: 'refund policy for damaged goods' } },
        { name: 'refund', args: { orderId: 'A-1001' } },
      ],
      { argsBy: { search: 'exact' } },
    );
    expect(run).toHaveCalledToolSequence(
      [
        { name: 'search', args: { q: 'refund policy for damaged goods', page: 3 } },
        { name: 'refund', args: { orderId: 'A-1001' } },
      ],
      { argsBy: { search: 'exact' } },
    );
  });

  it('names the per-tool settings in the failure', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence(['search', { name: 'refund', args: { orderId: 'B-2' } }], {
        argsBy: { search: 'ignore', refund: ['orderId'] },
      }),
    );
    expect(message).toContain('mode: exact, args: subset, argsBy: { search: ignore; refund: [orderId] }');
    expect(message).toContain('first divergence at step 1: expected "refund" with {"orderId": "B-2"}');
  });

  it('rejects a setting that is not a mode, names or a function, and says which tool threw', () => {
    expect(() =>
      expect(run).toHaveCalledToolSequence(['search'], { argsBy: { search: 'loose' as never } }),
    ).toThrow(
      /options\.argsBy\.search must be one of "contains", "exact", "ignore", "within", "subset", "superset", a non-empty array of argument names, or a function/,
    );
    expect(() => expect(run).toHaveCalledToolSequence(['search'], { argsBy: { search: [] } })).toThrow(
      /options\.argsBy\.search must be/,
    );
    expect(() =>
      expect(run).toHaveCalledToolSequence([{ name: 'search', args: {} }], {
        argsBy: {
          search: () => {
            throw new Error('boom');
          },
        },
      }),
    ).toThrow(/options\.argsBy\.search threw while comparing .*: boom/);
  });
});
