import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { matchers } from '../../../matchers';
import { ARGS_MODES, TRAJECTORY_MODES } from '../../../matchers/modes';
import type { ArgsMode, TrajectoryMode } from '../../../matchers/types';
import { goldenSchema } from '../../../src/golden/golden.schema';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const passes = (assertion: () => void) => {
  try {
    assertion();
    return true;
  } catch {
    return false;
  }
};

const deploy = runOf(['get_deploy', 'verify_healthcheck', 'rollback']);

describe('contains: every expected step was called, extras allowed', () => {
  it('passes with extra calls, in any order', () => {
    expect(deploy).toHaveCalledToolSequence(['rollback', 'get_deploy'], { mode: 'contains' });
  });

  it('fails when an expected step is missing, naming it and the mode as written', () => {
    const message = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence(['rollback', 'notify'], { mode: 'contains' }),
    );
    expect(message).toContain('(mode: contains, args: subset)');
    expect(message).toContain('expected steps with no matching call (1):\n  1 notify');
    expect(message).not.toContain('calls matching no expected step');
  });

  it('counts calls: one call does not satisfy two steps', () => {
    expect(runOf(['a', 'b'])).not.toHaveCalledToolSequence(['a', 'a'], { mode: 'contains' });
  });
});

describe('within: every call is among the expected steps', () => {
  it('passes with expected steps missing', () => {
    expect(runOf(['b', 'a'])).toHaveCalledToolSequence(['a', 'b', 'c'], { mode: 'within' });
    expect(runOf([])).toHaveCalledToolSequence(['a'], { mode: 'within' });
  });

  it('fails on an extra call, naming it and the mode as written', () => {
    const message = failureOf(() =>
      expect(runOf(['a', 'delete_all'])).toHaveCalledToolSequence(['a', 'b'], { mode: 'within' }),
    );
    expect(message).toContain('(mode: within, args: subset)');
    expect(message).toContain('calls matching no expected step (1):\n  1 delete_all {}');
    expect(message).not.toContain('expected steps with no matching call');
  });

  it('fails when a tool is called more often than expected', () => {
    expect(runOf(['a', 'a'])).not.toHaveCalledToolSequence(['a', 'b'], { mode: 'within' });
  });
});

describe('args: contains and within', () => {
  const run = runOf([['search', { q: 'deploys', page: 2 }]]);

  it('contains: the call has every expected argument, extra arguments allowed', () => {
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys' } }], { args: 'contains' });
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys', team: 'core' } }], {
        args: 'contains',
      }),
    );
    expect(message).toContain('(mode: exact, args: contains)');
  });

  it('within: every argument of the call is among the expected ones', () => {
    expect(run).toHaveCalledToolSequence(
      [{ name: 'search', args: { q: 'deploys', page: 2, team: 'core' } }],
      {
        args: 'within',
      },
    );
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys' } }], { args: 'within' }),
    );
    expect(message).toContain('(mode: exact, args: within)');
  });

  it('argsBy takes the new names too, and prints them as written', () => {
    const message = failureOf(() =>
      expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'other' } }], {
        argsBy: { search: 'within' },
      }),
    );
    expect(message).toContain('argsBy: { search: within }');
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys' } }], {
      argsBy: { search: 'contains' },
    });
  });
});

describe('each new name behaves exactly as the older one', () => {
  const name = fc.constantFrom('a', 'b', 'c');
  const args = fc.option(fc.record({ x: fc.constantFrom(1, 2) }, { requiredKeys: [] }), { nil: undefined });
  const call = fc.tuple(
    name,
    fc.record({ x: fc.constantFrom(1, 2), y: fc.constantFrom(1, 2) }, { requiredKeys: [] }),
  );
  const step = fc.tuple(name, args);

  it.each([
    ['contains', 'subset'],
    ['within', 'superset'],
  ] as const)('mode %s is mode %s', (mode, older) => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 5 }), fc.array(step, { maxLength: 5 }), (calls, steps) => {
        const run = runOf(calls);
        const expected = steps.map(([n, a]) => (a === undefined ? n : { name: n, args: a }));
        const withNew = passes(() => expect(run).toHaveCalledToolSequence(expected, { mode }));
        const withOlder = passes(() => expect(run).toHaveCalledToolSequence(expected, { mode: older }));
        expect(withNew).toBe(withOlder);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['contains', 'subset'],
    ['within', 'superset'],
  ] as const)('args %s is args %s', (argsMode, older) => {
    fc.assert(
      fc.property(
        call,
        fc.record({ x: fc.constantFrom(1, 2), y: fc.constantFrom(1, 2) }, { requiredKeys: [] }),
        (c, expectedArgs) => {
          const run = runOf([c]);
          const expected = [{ name: c[0], args: expectedArgs }];
          const withNew = passes(() => expect(run).toHaveCalledToolSequence(expected, { args: argsMode }));
          const withOlder = passes(() => expect(run).toHaveCalledToolSequence(expected, { args: older }));
          expect(withNew).toBe(withOlder);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('mode names in errors and in golden task files', () => {
  it('an unknown mode lists every accepted name and points at a foreign name’s counterpart', () => {
    expect(() => expect(deploy).toHaveCalledToolSequence(['a'], { mode: 'strict' } as never)).toThrow(
      /options\.mode must be one of "exact", "ordered", "unordered", "contains", "within", "subset", "superset"; did you mean "exact"\?[\s\S]*"strict"/,
    );
    expect(() => expect(deploy).toHaveCalledToolSequence(['a'], { mode: 'in_order' } as never)).toThrow(
      /did you mean "ordered"\?/,
    );
    expect(() => expect(deploy).toHaveCalledToolSequence(['a'], { args: 'partial' } as never)).toThrow(
      /options\.args must be one of "contains", "exact", "ignore", "within", "subset", "superset"; did you mean "contains"\?/,
    );
  });

  it('the golden task schema accepts the same names as the matcher', () => {
    const trajectory = (goldenSchema as any).definitions?.trajectory ?? findTrajectory(goldenSchema);
    const object = trajectory.anyOf.find((s: { type?: string }) => s.type === 'object');
    expect(object.properties.mode.enum).toEqual([...TRAJECTORY_MODES] satisfies TrajectoryMode[]);
    expect(object.properties.args.enum).toEqual([...ARGS_MODES] satisfies ArgsMode[]);
  });
});

/** The schema node whose description starts "The tool calls the agent must make". */
function findTrajectory(node: unknown): any {
  if (typeof node !== 'object' || node === null) return undefined;
  const n = node as Record<string, unknown>;
  if (typeof n.description === 'string' && n.description.startsWith('The tool calls the agent must make'))
    return n;
  for (const value of Object.values(n)) {
    const found = findTrajectory(value);
    if (found) return found;
  }
  return undefined;
}
