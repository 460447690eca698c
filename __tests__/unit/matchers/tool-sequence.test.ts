import { describe, expect, it } from '@jest/globals';
import { matchers } from '../../../matchers';
import { failureOf, runOf } from './helpers';

expect.extend(matchers);

const deploy = runOf(['get_deploy', 'verify_healthcheck', ['rollback', { ns: 'canary', force: true }]]);

describe('toHaveCalledToolSequence modes', () => {
  it('exact (default): same calls, same order, same length', () => {
    expect(deploy).toHaveCalledToolSequence(['get_deploy', 'verify_healthcheck', 'rollback']);
    expect(deploy).toHaveCalledToolSequence(['get_deploy', 'verify_healthcheck', 'rollback'], {
      mode: 'exact',
    });
    expect(deploy).not.toHaveCalledToolSequence(['get_deploy', 'rollback', 'verify_healthcheck']);
    expect(deploy).not.toHaveCalledToolSequence(['get_deploy', 'verify_healthcheck']);
    expect(deploy).not.toHaveCalledToolSequence(['get_deploy', 'verify_healthcheck', 'rollback', 'notify']);
  });

  it('exact: an empty run matches only an empty sequence', () => {
    expect(runOf([])).toHaveCalledToolSequence([]);
    expect(runOf([])).not.toHaveCalledToolSequence(['get_deploy']);
  });

  it('ordered: expected is a subsequence, other calls may come between', () => {
    expect(deploy).toHaveCalledToolSequence(['get_deploy', 'rollback'], { mode: 'ordered' });
    expect(deploy).toHaveCalledToolSequence([], { mode: 'ordered' });
    expect(deploy).not.toHaveCalledToolSequence(['rollback', 'get_deploy'], { mode: 'ordered' });
    expect(deploy).not.toHaveCalledToolSequence(['get_deploy', 'get_deploy'], { mode: 'ordered' });
  });

  it('unordered: same multiset of calls in any order, nothing extra', () => {
    expect(deploy).toHaveCalledToolSequence(['rollback', 'get_deploy', 'verify_healthcheck'], {
      mode: 'unordered',
    });
    expect(deploy).not.toHaveCalledToolSequence(['rollback', 'get_deploy'], { mode: 'unordered' });
    expect(runOf(['a', 'b'])).not.toHaveCalledToolSequence(['a', 'a'], { mode: 'unordered' });
  });

  it('subset: every expected step was called somewhere, extras allowed', () => {
    expect(deploy).toHaveCalledToolSequence(['rollback', 'get_deploy'], { mode: 'subset' });
    expect(deploy).not.toHaveCalledToolSequence(['rollback', 'notify'], { mode: 'subset' });
    // Multiset: one call cannot satisfy two steps.
    expect(runOf(['a', 'b'])).not.toHaveCalledToolSequence(['a', 'a'], { mode: 'subset' });
  });

  it('superset: every call is among the expected steps, steps may be missing', () => {
    expect(runOf(['b', 'a'])).toHaveCalledToolSequence(['a', 'b', 'c'], { mode: 'superset' });
    expect(runOf([])).toHaveCalledToolSequence(['a'], { mode: 'superset' });
    expect(runOf(['a', 'd'])).not.toHaveCalledToolSequence(['a', 'b', 'c'], { mode: 'superset' });
    expect(runOf(['a', 'a'])).not.toHaveCalledToolSequence(['a', 'b'], { mode: 'superset' });
  });
});

describe('toHaveCalledToolSequence argument modes', () => {
  const run = runOf([
    ['search', { q: 'deploys', filter: { env: 'prod', team: 'core' }, tags: [{ k: 'a', v: 1 }] }],
  ]);

  it('subset (default): expected args are a deep subset of the call arguments', () => {
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys' } }]);
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { filter: { env: 'prod' } } }]);
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: {} }]);
    expect(run).not.toHaveCalledToolSequence([{ name: 'search', args: { q: 'rollbacks' } }]);
    expect(run).not.toHaveCalledToolSequence([{ name: 'search', args: { filter: { env: 'dev' } } }]);
  });

  it('subset: arrays need the same length, their elements compare as subsets', () => {
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { tags: [{ k: 'a' }] } }]);
    expect(run).not.toHaveCalledToolSequence([{ name: 'search', args: { tags: [] } }]);
    expect(run).not.toHaveCalledToolSequence([{ name: 'search', args: { tags: [{ k: 'a' }, { k: 'b' }] } }]);
  });

  it('exact: deep equality', () => {
    const args = { q: 'deploys', filter: { env: 'prod', team: 'core' }, tags: [{ k: 'a', v: 1 }] };
    expect(run).toHaveCalledToolSequence([{ name: 'search', args }], { args: 'exact' });
    expect(run).not.toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys' } }], { args: 'exact' });
  });

  it('ignore: names only', () => {
    expect(run).toHaveCalledToolSequence([{ name: 'search', args: { q: 'nothing like it' } }], {
      args: 'ignore',
    });
    expect(run).not.toHaveCalledToolSequence([{ name: 'find', args: {} }], { args: 'ignore' });
  });

  it('superset: the call arguments are a deep subset of the expected args', () => {
    const small = runOf([['search', { q: 'deploys' }]]);
    expect(small).toHaveCalledToolSequence([{ name: 'search', args: { q: 'deploys', limit: 10 } }], {
      args: 'superset',
    });
    expect(small).not.toHaveCalledToolSequence([{ name: 'search', args: { limit: 10 } }], {
      args: 'superset',
    });
  });

  it('a step without args matches any arguments, even with args: exact', () => {
    expect(run).toHaveCalledToolSequence(['search'], { args: 'exact' });
    expect(run).toHaveCalledToolSequence([{ name: 'search' }], { args: 'superset' });
  });

  it('mixes names and { name, args } steps', () => {
    expect(deploy).toHaveCalledToolSequence([
      'get_deploy',
      { name: 'verify_healthcheck' },
      { name: 'rollback', args: { ns: 'canary' } },
    ]);
  });
});

describe('toHaveCalledToolSequence with asymmetric matchers in args', () => {
  const run = runOf([['notify', { channel: '#ops', text: 'Rolled back canary', at: 1700000000 }]]);

  it('matches nested asymmetric matchers', () => {
    expect(run).toHaveCalledToolSequence([
      { name: 'notify', args: { channel: expect.any(String), text: expect.stringContaining('canary') } },
    ]);
    expect(run).not.toHaveCalledToolSequence([
      { name: 'notify', args: { text: expect.stringMatching(/^Deployed/) } },
    ]);
  });

  it('accepts an asymmetric matcher as the whole args', () => {
    expect(run).toHaveCalledToolSequence([
      { name: 'notify', args: expect.objectContaining({ channel: '#ops' }) },
    ]);
  });

  it('works with exact and superset args modes', () => {
    const exact = { channel: '#ops', text: expect.any(String), at: expect.any(Number) };
    expect(run).toHaveCalledToolSequence([{ name: 'notify', args: exact }], { args: 'exact' });
    expect(run).toHaveCalledToolSequence([{ name: 'notify', args: { ...exact, extra: 1 } }], {
      args: 'superset',
    });
    expect(run).not.toHaveCalledToolSequence(
      [{ name: 'notify', args: { ...exact, at: expect.any(String) } }],
      {
        args: 'exact',
      },
    );
  });
});

describe('toHaveCalledToolSequence matching is optimal, never greedy', () => {
  // The loose step `a {}` fits both calls; pairing it with the first call would
  // strand the strict step `a {x: 1}`.
  const loose = [
    { name: 'a', args: {} },
    { name: 'a', args: { x: 1 } },
  ];

  it('unordered', () => {
    expect(
      runOf([
        ['a', { x: 1 }],
        ['a', { x: 2 }],
      ]),
    ).toHaveCalledToolSequence(loose, { mode: 'unordered' });
  });

  it('subset', () => {
    expect(runOf([['a', { x: 1 }], 'b', ['a', { x: 2 }]])).toHaveCalledToolSequence(loose, {
      mode: 'subset',
    });
  });

  it('superset', () => {
    // Each call looks for a step: `a {x: 1}` must not take the loose step that `a {x: 2}` needs.
    expect(
      runOf([
        ['a', { x: 1 }],
        ['a', { x: 2 }],
      ]),
    ).toHaveCalledToolSequence([...loose, 'b'], {
      mode: 'superset',
    });
  });

  it('ordered: a call with the right name but wrong args does not end the search', () => {
    const run = runOf([['a', { x: 1 }], ['a', { x: 2 }], 'b']);
    expect(run).toHaveCalledToolSequence([{ name: 'a', args: { x: 2 } }, 'b'], { mode: 'ordered' });
  });

  it('ordered: a loose step does not consume the call a later strict step needs', () => {
    const run = runOf([
      ['a', { x: 1 }],
      ['a', { x: 2 }],
      ['a', { x: 1 }],
    ]);
    expect(run).toHaveCalledToolSequence(['a', { name: 'a', args: { x: 1 } }], { mode: 'ordered' });
    expect(run).toHaveCalledToolSequence(loose, { mode: 'ordered' });
  });
});

describe('toHaveCalledToolSequence failure messages', () => {
  it('shows both trajectories and marks the first divergence', () => {
    const message = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence(['get_deploy', { name: 'rollback', args: { ns: 'canary' } }]),
    );
    expect(message).toContain('expect(received).toHaveCalledToolSequence(expected)');
    expect(message).toContain('(mode: exact, args: subset); 2 steps expected, 3 calls received');
    expect(message).toMatch(/^ {4}Expected {2,}Received$/m);
    expect(message).toMatch(/^ {2}0 get_deploy {2,}0 get_deploy \{\}$/m);
    expect(message).toMatch(/^> 1 rollback \{"ns": "canary"\} {2,}1 verify_healthcheck \{\}$/m);
    expect(message).toMatch(/^ {2,}2 rollback \{"force": true, "ns": "canary"\}$/m);
    expect(message).toContain(
      'first divergence at step 1: expected "rollback", received "verify_healthcheck"\n' +
        '(a matching call occurs at received step 2, out of place)',
    );
  });

  it('marks only the first divergence in a sequence', () => {
    const message = failureOf(() => expect(runOf(['a', 'b', 'c'])).toHaveCalledToolSequence(['a', 'x', 'y']));
    expect(message.match(/^>/gm)).toHaveLength(1);
  });

  it('shows arguments when the names agree', () => {
    expect(() =>
      expect(deploy).toHaveCalledToolSequence([
        'get_deploy',
        'verify_healthcheck',
        { name: 'rollback', args: { ns: 'prod' } },
      ]),
    ).toThrow(/step 2: expected "rollback" with .*"ns": "prod".*, received "rollback" with .*"ns": "canary"/);
  });

  it('says when the run stopped early or went on', () => {
    expect(failureOf(() => expect(runOf(['a'])).toHaveCalledToolSequence(['a', 'b']))).toContain(
      'first divergence at step 1: expected "b", but the run made only 1 call',
    );
    expect(failureOf(() => expect(runOf(['a', 'b'])).toHaveCalledToolSequence(['a']))).toContain(
      'first divergence at step 1: expected no more calls, received "b"',
    );
  });

  it('points at a same-named call with other arguments', () => {
    const message = failureOf(() =>
      expect(runOf(['a', 'x', ['b', { id: 2 }]])).toHaveCalledToolSequence([
        'a',
        { name: 'b', args: { id: 1 } },
        'x',
      ]),
    );
    expect(message).toContain(
      'first divergence at step 1: expected "b", received "x"\n' +
        '(received step 2 calls "b" with other arguments: {"id": 2})',
    );
  });

  it('ordered: names the expected step that found no call in order', () => {
    const message = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence(['get_deploy', 'rollback', 'verify_healthcheck'], {
        mode: 'ordered',
      }),
    );
    expect(message).toContain(
      'first divergence at expected step 2: expected "verify_healthcheck", but no call in order matches it',
    );
    expect(message).toContain('(a matching call occurs at received step 1, out of place)');
    // Paired steps share a row; the skipped call stands alone.
    expect(message).toMatch(/^ {2}1 rollback {2,}2 rollback/m);
    expect(message).toMatch(/^ {3,}1 verify_healthcheck \{\}$/m);
  });

  it('says when the only matching call is already paired with another step', () => {
    const message = failureOf(() =>
      expect(runOf(['a', 'b'])).toHaveCalledToolSequence(['a', 'a'], { mode: 'ordered' }),
    );
    expect(message).toContain(
      'first divergence at expected step 1 (received step 1): expected "a", received "b"',
    );
    expect(message).toContain('(received step 0 also matches, but it is paired with expected step 0)');
  });

  it('ordered: shows the call made where the missing step was expected', () => {
    const message = failureOf(() =>
      expect(runOf(['a', 'x', 'c'])).toHaveCalledToolSequence(['a', 'b', 'c'], { mode: 'ordered' }),
    );
    expect(message).toContain(
      'first divergence at expected step 1 (received step 1): expected "b", received "x"',
    );
    expect(message).toMatch(/^> 1 b {2,}1 x \{\}$/m);
  });

  it('unordered modes list the unmatched steps and calls', () => {
    const message = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence(['notify', 'rollback', 'get_deploy'], { mode: 'unordered' }),
    );
    expect(message).toContain('expected steps with no matching call (1):\n  0 notify');
    expect(message).toContain('calls matching no expected step (1):\n  1 verify_healthcheck {}');
    expect(message).toMatch(/^> 0 notify$/m);
    expect(message).not.toContain('first divergence');
  });

  it('subset and superset list only what their mode forbids', () => {
    const subset = failureOf(() => expect(deploy).toHaveCalledToolSequence(['notify'], { mode: 'subset' }));
    expect(subset).toContain('expected steps with no matching call (1)');
    expect(subset).not.toContain('calls matching no expected step');
    const superset = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence(['rollback'], { mode: 'superset' }),
    );
    expect(superset).toContain(
      'calls matching no expected step (2):\n  0 get_deploy {}\n  1 verify_healthcheck {}',
    );
    expect(superset).not.toContain('expected steps with no matching call');
  });

  it('prints asymmetric matchers by name', () => {
    const message = failureOf(() =>
      expect(deploy).toHaveCalledToolSequence([
        { name: 'notify', args: { text: expect.stringContaining('ok') } },
      ]),
    );
    expect(message).toContain('notify {"text": StringContaining "ok"}');
  });

  it('.not: says the run did call the sequence and shows it', () => {
    const message = failureOf(() =>
      expect(deploy).not.toHaveCalledToolSequence(['rollback', 'get_deploy'], {
        mode: 'subset',
        args: 'ignore',
      }),
    );
    expect(message).toContain('expect(received).not.toHaveCalledToolSequence(expected, options)');
    expect(message).toContain(
      'expected the run not to call the tool sequence (mode: subset, args: ignore), but it did',
    );
    expect(message).toMatch(/^ {2}0 rollback {2,}2 rollback/m);
  });
});
