/**
 * Drift: how far live trajectories moved from the recorded one (tools, argument shapes, order,
 * terminal state; never prose), and what changed, counted over the runs.
 */
import { describe, expect, it } from '@jest/globals';
import { distance, driftOf } from '../../../../src/nightly/drift';
import type { Trajectory } from '../../../../src/nightly/trajectory';

const t = (tools: Array<[string, string?]>, terminal = 'stop'): Trajectory => ({
  tools: tools.map(([tool, shape = '{id:string}']) => ({ tool, shape })),
  terminal,
});

describe('distance', () => {
  it('is 0 for the same path', () => {
    expect(distance(t([['a'], ['b']]), t([['a'], ['b']]))).toEqual({ value: 0, changes: [] });
  });

  it('weighs each part: another tool, another shape, another order, another ending', () => {
    expect(distance(t([['a']]), t([['b']])).value).toBeCloseTo(0.55);
    expect(distance(t([['a', '{id:string}']]), t([['a', '{key:string}']]))).toEqual({
      value: 0.2,
      changes: ['a arguments {id:string} → {key:string}'],
    });
    expect(distance(t([['a'], ['b']]), t([['b'], ['a']]))).toEqual({
      value: 0.1,
      changes: ['tools in another order: b → a, recorded a → b'],
    });
    expect(distance(t([['a']]), t([['a']], 'length'))).toEqual({
      value: 0.25,
      changes: ['ended length, recorded stop'],
    });
    expect(distance(t([['a']]), t([['a'], ['a']])).changes).toEqual(['a called 2 times, recorded 1']);
  });
});

describe('driftOf', () => {
  it('is the mean over the runs, each change counted by the runs it happened in', () => {
    const recorded = t([['lookup_order']]);
    const drift = driftOf(recorded, [recorded, recorded, t([['lookup_refund']])]);
    expect(drift.score).toBe(0.183);
    expect(drift.changes).toEqual([
      'lookup_order not called in 1 of 3 runs',
      'lookup_refund called in 1 of 3 runs',
    ]);
  });

  it('is 0 with no run to compare', () => {
    expect(driftOf(t([['a']]), [])).toEqual({ score: 0, changes: [] });
  });
});
