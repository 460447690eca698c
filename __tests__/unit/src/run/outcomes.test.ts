/**
 * What counts as the test looking at how a run ended (src/run/outcomes.ts), and which run a
 * call without async context belongs to (src/run/scope.ts). The end-to-end behaviour (a test
 * failed at its end) is covered from the installed package in __tests__/installed/runs.test.ts.
 *
 * @jest-environment ./environment/jest/index.ts
 */

import { inspect } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { type Run, understudy } from 'jest-understudy';
import { format } from 'pretty-format';
import { OutcomeWatch, peek } from '../../../../src/run/outcomes';
import { Owner, RunScope } from '../../../../src/run/scope';
import { getRuntime } from '../../../../src/sandbox/runtime';

const crash = async () => {
  throw new Error('boom');
};

/** A run that ended errored, watched by a watch of its own (not the file's). */
async function watched(kind?: string, inTest = true): Promise<{ run: Run; watch: OutcomeWatch }> {
  const run = await understudy.run(crash, { expectError: true });
  const watch = new OutcomeWatch();
  watch.watch(run, kind, inTest);
  return { run, watch };
}

describe('a run that ended errored', () => {
  it('is reported with the error and a one-line hint when nothing read it', async () => {
    const { watch } = await watched();
    const [message, ...more] = watch.take(true);
    expect(more).toEqual([]);
    expect(message).toContain(
      "the agent of understudy.run() threw (terminal state 'errored') and the test never looked at how the run ended",
    );
    expect(message).toContain('Error: boom');
    expect(message.trim().split('\n').pop()).toBe(
      "To accept it: expect(run).toHaveTerminalState('errored'), or understudy.run(fn, { expectError: true }).",
    );
    expect(watch.take(true)).toEqual([]);
  });

  it.each<[string, (run: Run) => unknown]>([
    ['reading terminalState', (run) => run.terminalState],
    ['reading error', (run) => run.error],
    ['destructuring error', ({ error }) => error],
    ['toHaveTerminalState', (run) => expect(run).toHaveTerminalState('errored')],
    ['not.toHaveTerminalState', (run) => expect(run).not.toHaveTerminalState('succeeded')],
    ['toMatchObject with terminalState', (run) => expect(run).toMatchObject({ terminalState: 'errored' })],
    ['toHaveProperty', (run) => expect(run).toHaveProperty('error.message', 'boom')],
    ['toHaveProperty on the state', (run) => expect(run).toHaveProperty('terminalState')],
    [
      'objectContaining with the error',
      (run) => expect(run).toEqual(expect.objectContaining({ error: expect.any(Error) })),
    ],
    ['toMatchObject with the error', (run) => expect(run).toMatchObject({ error: { message: 'boom' } })],
  ])('counts as looked at after %s', async (_, look) => {
    const { run, watch } = await watched();
    look(run);
    expect(watch.take(true)).toEqual([]);
  });

  it.each<[string, (run: Run) => unknown]>([
    ['JSON.stringify', (run) => JSON.stringify(run)],
    ['pretty-format (snapshots)', (run) => format(run)],
    ['reading other fields', (run) => [run.toolsCalled, run.modelCalls, run.finalMessage, run.output]],
    ['toMatchObject without the outcome', (run) => expect(run).toMatchObject({ toolsCalled: [] })],
    ['a trajectory matcher', (run) => expect(run).not.toHaveCalledTool('anything')],
    ['not.toHaveFinalMessage', (run) => expect(run).not.toHaveFinalMessage('refund')],
    [
      'a failing matcher, its message built',
      (run) => expect(() => expect(run).toHaveFinalMessage('refund')).toThrow(/errored/),
    ],
    ['spreading the run', (run) => ({ ...run })],
    ['Object.assign', (run) => Object.assign({}, run)],
    ['Object.keys and entries', (run) => [Object.keys(run), Object.entries(run)]],
    ['toEqual on the whole run', (run) => expect(run).toEqual({ ...run })],
    ['util.inspect (console.log)', (run) => inspect(run, { depth: 4 })],
    ['structuredClone of its plain parts', (run) => structuredClone(JSON.parse(JSON.stringify(run)))],
    ['reading the trace', (run) => run.trace],
    ['writing the test trace', () => getRuntime().testEvidence()],
    ['peek', (run) => [peek(run, 'terminalState'), peek(run, 'error')]],
  ])('does not count as looked at after %s', async (_, look) => {
    const { run, watch } = await watched();
    look(run);
    expect(watch.take(true)).toHaveLength(1);
  });

  it('serialises and prints as before: the same fields, the outcome included', async () => {
    const { run } = await watched();
    const plain = JSON.parse(JSON.stringify(run));
    const defined = [...Object.keys(run), 'error', 'terminalState'].filter(
      (k) => peek(run, k as keyof Run) !== undefined,
    );
    expect(Object.keys(plain).sort()).toEqual(defined.sort());
    expect(plain).toMatchObject({ terminalState: 'errored', error: {} });
    expect(format(run)).toContain('"terminalState": "errored"');
    expect(inspect(run)).toContain("terminalState: 'errored'");
  });

  it('stays writable; writing is not looking', async () => {
    const { run, watch } = await watched();
    run.terminalState = 'cancelled';
    expect(peek(run, 'terminalState')).toBe('cancelled');
    expect(watch.take(true)).toHaveLength(1);
  });

  it('made outside a test is reported with the file, not with the test', async () => {
    const { watch } = await watched(undefined, false);
    expect(watch.take(true)).toEqual([]);
    expect(watch.take(false)).toHaveLength(1);
  });

  it.each([
    [
      'harness',
      'pass `expectError: true` to createAgentHarness() or harness.run({ input, expectError: true })',
    ],
    ['drill', 'Check the drill with expect(result).toHavePassedDrill()'],
    ['golden', 'give the task `expect: { terminalState: errored }`'],
  ])('of kind %s has its own hint', async (kind, hint) => {
    const { watch } = await watched(kind);
    expect(watch.take(true)[0]).toContain(hint);
  });

  it('is looked at through a view that carries its outcome (a drill result)', async () => {
    const { run, watch } = await watched('drill');
    const view = watch.seenThrough(
      { verdict: 'failed', reasons: ['the agent threw'], other: 1 },
      ['verdict', 'reasons'],
      [run],
    );
    void view.other;
    expect(JSON.parse(JSON.stringify(view))).toEqual({
      verdict: 'failed',
      reasons: ['the agent threw'],
      other: 1,
    });
    expect(watch.take(true)).toHaveLength(1);
    const again = await watched('drill');
    const seen = again.watch.seenThrough({ verdict: 'failed' }, ['verdict'], [again.run]);
    expect(seen.verdict).toBe('failed');
    expect(again.watch.take(true)).toEqual([]);
  });

  it('succeeded, needs no look', async () => {
    const run = await understudy.run(async () => 'fine', { expectError: true });
    const watch = new OutcomeWatch();
    watch.watch(run, undefined, true);
    expect(watch.take(true)).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(run, 'terminalState')?.value).toBe('succeeded');
  });

  it('rejects an expectError that is not a boolean', async () => {
    await expect(understudy.run(crash, { expectError: 'yes' as unknown as boolean })).rejects.toThrow(
      'understudy.run(fn, { expectError }): expected true or false, received string',
    );
  });
});

describe('a call that arrives without a run context', () => {
  const make = () => {
    const failures: string[] = [];
    const file = new Owner(undefined);
    const scope = new RunScope<{ id: number }>({
      owner: () => file,
      fail: (_code, message) => failures.push(message),
      failOwner: (_owner, _code, message) => failures.push(message),
    });
    return { scope, failures };
  };
  const what = () => 'a test call';

  it('belongs to the run whose context it carries, however many are active', () => {
    const { scope, failures } = make();
    const a = { id: 1 };
    const b = { id: 2 };
    scope.run(b, () => undefined);
    expect(scope.run(a, () => scope.attribute(what))).toBe(a);
    expect(failures).toEqual([]);
  });

  it('belongs to the only active run', () => {
    const { scope, failures } = make();
    const a = { id: 1 };
    scope.run(a, () => undefined);
    expect(scope.attribute(what)).toBe(a);
    expect(scope.getStore()).toBe(a);
    scope.end(a);
    expect(scope.attribute(what)).toBeUndefined();
    expect(failures).toEqual([]);
  });

  it('fails the test when several runs are active', () => {
    const { scope, failures } = make();
    scope.run({ id: 1 }, () => undefined);
    scope.run({ id: 2 }, () => undefined);
    expect(scope.attribute(what)).toBeUndefined();
    expect(scope.getStore()).toBeUndefined();
    expect(failures).toEqual([
      expect.stringContaining(
        'a test call arrived outside the async context of every run while 2 runs were active',
      ),
    ]);
  });

  it('belongs to no run left over from an earlier test', () => {
    const { scope } = make();
    scope.run({ id: 1 }, () => undefined);
    scope.forgetActive();
    expect(scope.attribute(what)).toBeUndefined();
  });
});
