/**
 * Which test and run a call belongs to once they end (src/run/scope.ts): a call in the async
 * context of an ended run, or of a run whose test ended, is refused and fails that test while it
 * runs, else the file; tokens name a run or a test; a crashed run's calls are held, not refused.
 * Concurrent tests' bodies are told apart (environment/concurrent.ts). The end-to-end behaviour is
 * covered from the installed package in __tests__/installed/ownership.test.ts.
 */

import { describe, expect, it } from '@jest/globals';
import type { Circus } from '@jest/types';
import { ConcurrentTests } from '../../../../environment/jest/concurrent';
import { Owner, RunScope } from '../../../../src/run/scope';

interface Failed {
  owner?: Owner;
  code: string;
  message: string;
}

function scope() {
  const file = new Owner(undefined);
  let current = file;
  const failed: Failed[] = [];
  const runs = new RunScope<{ id: number }>({
    owner: () => current,
    fail: (code, message) => failed.push({ code, message }),
    failOwner: (owner, code, message) => failed.push({ owner, code, message }),
  });
  return {
    runs,
    failed,
    file,
    start(name: string) {
      current = new Owner(name);
      return current;
    },
    finish() {
      current.ended = true;
      current = file;
    },
  };
}

const what = () => 'a test call (POST https://api.test/v1)';

describe('a call in the async context of a run', () => {
  it('belongs to the run while it goes on', () => {
    const s = scope();
    s.start('refunds');
    const run = { id: 1 };
    expect(s.runs.run(run, () => s.runs.claim(what))).toEqual({ run });
    expect(s.failed).toEqual([]);
  });

  it('is refused once the run ended, failing the test that made the run, naming the call', async () => {
    const s = scope();
    const test = s.start('refunds');
    const run = { id: 1 };
    let late: (() => unknown) | undefined;
    s.runs.run(run, () => {
      late = () => s.runs.claim(what);
    });
    // A timer the agent left: it keeps the run's context after the run ends.
    const timer = new Promise((resolve) => s.runs.within(run, () => setTimeout(() => resolve(late?.()), 5)));
    s.runs.end(run);
    const claim = (await timer) as { refused?: string; run?: unknown };
    expect(claim.run).toBeUndefined();
    expect(claim.refused).toContain(
      'a test call (POST https://api.test/v1) was made after a run of the test "refunds" had ended, so it belongs to no run',
    );
    expect(s.failed).toEqual([{ owner: test, code: 'RUN_ENDED', message: claim.refused }]);
  });

  it("is refused once the run's test ended, though the run was never awaited", () => {
    const s = scope();
    const test = s.start('refunds');
    const run = { id: 1 };
    s.runs.run(run, () => undefined);
    s.finish();
    s.start('the next test');
    const claim = s.runs.within(run, () => s.runs.claim(what));
    expect(claim.refused).toContain(
      'in a run of the test "refunds" after that test had ended (the run was never awaited)',
    );
    expect(s.failed[0].owner).toBe(test);
  });

  it('that belongs to no run (an embedding request) is refused only when late', () => {
    const s = scope();
    s.start('embeds');
    const run = { id: 1 };
    s.runs.run(run, () => undefined);
    expect(s.runs.within(run, () => s.runs.refuseIfLate(what))).toBeUndefined();
    expect(s.runs.refuseIfLate(what)).toBeUndefined();
    s.runs.end(run);
    expect(s.runs.within(run, () => s.runs.refuseIfLate(what))).toContain(
      'was made after a run of the test "embeds"',
    );
    expect(s.failed).toHaveLength(1);
  });

  it('of a crashed run is held by the crash, not refused', () => {
    const s = scope();
    s.start('crash');
    const run = { id: 1 };
    s.runs.run(run, () => undefined);
    s.runs.end(run, true);
    expect(s.runs.within(run, () => s.runs.claim(what))).toEqual({ run });
    expect(s.failed).toEqual([]);
  });

  it('made by a run of the file (outside tests) fails the file once it ended', () => {
    const s = scope();
    const run = { id: 1 };
    s.runs.run(run, () => undefined);
    s.runs.end(run);
    s.start('a test');
    s.runs.within(run, () => s.runs.attribute(what));
    expect(s.failed).toEqual([
      { owner: s.file, code: 'RUN_ENDED', message: expect.stringContaining('after a run of the test file') },
    ]);
  });
});

describe('tokens', () => {
  it("name the run they were read in, and the run's test once it ended", () => {
    const s = scope();
    const test = s.start('serves');
    const run = { id: 1 };
    const token = s.runs.run(run, () => s.runs.currentToken()) as string;
    expect(token).toMatch(/^r\d+$/);
    expect(s.runs.ofToken(token)).toEqual({ state: 'active', recorder: run });
    s.runs.end(run);
    expect(s.runs.ofToken(token)).toEqual({ state: 'ended', owner: test, of: 'run' });
  });

  it('name the test they were read in outside its runs, until it ends', () => {
    const s = scope();
    const test = s.start('serves');
    const token = s.runs.currentToken() as string;
    expect(token).toMatch(/^t\d+$/);
    expect(s.runs.currentToken()).toBe(token);
    expect(s.runs.ofToken(token)).toEqual({ state: 'test', owner: test });
    s.finish();
    expect(s.runs.ofToken(token)).toEqual({ state: 'ended', owner: test, of: 'test' });
    expect(s.runs.ofToken('t999')).toEqual({ state: 'unknown' });
  });

  it('are not issued outside tests and runs', () => {
    expect(scope().runs.currentToken()).toBeUndefined();
  });
});

describe('concurrent tests', () => {
  const entry = (name: string, fn: (...args: unknown[]) => unknown, concurrent = true) =>
    ({ type: 'test', name, fn, concurrent, errors: [] }) as unknown as Circus.TestEntry;
  const block = (children: Circus.TestEntry[]) =>
    ({ type: 'describeBlock', name: 'ROOT_DESCRIBE_BLOCK', children }) as unknown as Circus.DescribeBlock;

  it("are told apart by their bodies' async context, each with its own failures", async () => {
    const tests = new ConcurrentTests();
    const seen: Array<string | undefined> = [];
    const body = async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const test = tests.current();
      seen.push(test?.name);
      test?.fail({ code: 'CONCURRENT_TEST', message: `refused in ${test.name}` });
      test?.fail({ code: 'CONCURRENT_TEST', message: `refused in ${test.name}` });
    };
    const a = entry('a', body);
    const b = entry('b', body);
    const plain = entry('plain', () => seen.push(tests.current()?.name ?? 'none'), false);
    expect(tests.wrap(block([a, b, plain]), (t) => t.name)).toBe(true);
    const call = (test: Circus.TestEntry) => (test.fn as () => Promise<void>).call({});
    await Promise.all([call(a), call(b)]);
    (plain.fn as () => void)();
    expect(seen.sort()).toEqual(['a', 'b', 'none']);
    expect(tests.take(a)).toEqual([{ code: 'CONCURRENT_TEST', message: 'refused in a' }]);
    expect(tests.take(a)).toEqual([]);
    expect(tests.take(b)).toEqual([{ code: 'CONCURRENT_TEST', message: 'refused in b' }]);
    expect(tests.current()).toBeUndefined();
  });

  it("keep their body's arity (Jest reads it for a done callback), and a file without one wraps nothing", () => {
    const tests = new ConcurrentTests();
    const withDone = entry('done', (done: unknown) => done);
    tests.wrap(block([withDone]), (t) => t.name);
    expect(withDone.fn!.length).toBe(1);
    const plain = entry('plain', () => undefined, false);
    const fn = plain.fn;
    expect(new ConcurrentTests().wrap(block([plain]), (t) => t.name)).toBe(false);
    expect(plain.fn).toBe(fn);
  });
});
