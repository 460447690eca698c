import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ContainmentHooks } from '../../../../environment/network';
import { withCodeInName } from '../../../../environment/vitest/coded-name';
import {
  pragmasOf,
  startSession,
  type TaskLike,
  type VitestApi,
} from '../../../../environment/vitest/session';
import { BRIDGE_KEY, type Bridge, type FileSession } from '../../../../src/sandbox/bridge';

// The network policy is tested in ../network; here it only hands the adapter its hooks. The global
// `jest` (not the @jest/globals import): @swc/jest hoists jest.mock calls on it.
const containment: { hooks?: ContainmentHooks; undiciLoads: number } = { undiciLoads: 0 };
jest.mock('../../../../environment/network', () => ({
  contain: async (hooks: ContainmentHooks) => {
    containment.hooks = hooks;
    return {
      fetch,
      upstream: fetch,
      refusal: () => undefined,
      loadUndici: () => {
        containment.undiciLoads++;
      },
      close: async () => undefined,
    };
  },
}));

const dir = mkdtempSync(join(tmpdir(), 'understudy-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Vitest's functions as the setup file hands them over, the hooks kept to be called by the test. */
function fakeVitest(testPath: string) {
  const hooks: Record<string, Array<(...args: any[]) => unknown>> = {
    beforeEach: [],
    afterAll: [],
    aroundEach: [],
  };
  const vi = { useFakeTimers: () => vi, useRealTimers: () => vi, clearAllTimers: () => vi };
  const api = {
    beforeEach: (fn: () => unknown) => hooks.beforeEach.push(fn),
    afterAll: (fn: () => unknown) => hooks.afterAll.push(fn),
    aroundEach: (fn: () => unknown) => hooks.aroundEach.push(fn),
    vi,
    expect: { extend: () => undefined, getState: () => ({ testPath }) },
    globals: {} as VitestApi['globals'],
  } as unknown as VitestApi;
  return { api, hooks, vi };
}

describe('the Vitest session of one test file', () => {
  it('refuses a session without the plugin, saying to add it', async () => {
    const { api } = fakeVitest(join(dir, 'c.test.mjs'));
    await expect(startSession(api, undefined)).rejects.toThrow(
      "add the plugin (`plugins: [understudy()]` from 'jest-understudy/vitest')",
    );
    await expect(startSession(api, undefined)).rejects.toMatchObject({
      name: 'UnderstudyError [ENVIRONMENT_MISSING]',
    });
  });

  it("drives the session through the runner-adapter contract from Vitest's hooks, as Jest's adapter does", async () => {
    const testPath = join(dir, 'contract.test.mjs');
    writeFileSync(testPath, "import { test } from 'vitest';\n");
    const { api, hooks, vi } = fakeVitest(testPath);
    await startSession(api, { options: { traces: 'off' }, root: dir, project: '' });
    const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
    if (!bridge) throw new Error('no bridge on the test realm');
    expect(bridge.runner?.name).toBe('vitest');
    const calls: unknown[][] = [];
    const failures: Array<{ code: 'MODEL_UNMATCHED'; message: string }> = [];
    const session = {
      testStarted: (name: string) => calls.push(['testStarted', name]),
      testSkipped: () => calls.push(['testSkipped']),
      phaseChanged: (phase: unknown) => calls.push(['phaseChanged', phase]),
      testFinished: () => calls.push(['testFinished']),
      timersChanging: () => calls.push(['timersChanging']),
      fileFinished: async (failed: number) => {
        calls.push(['fileFinished', failed]);
        return [];
      },
      drainFailures: () => {
        calls.push(['drainFailures']);
        return failures.splice(0);
      },
      fileStats: () => ({ agentRuns: 0, replayed: {}, operations: 0, unmatched: 0, staleCassettes: [] }),
    } as unknown as FileSession;
    const suite: TaskLike = { name: 'agent', type: 'suite' };
    const task: TaskLike = { name: 'saves', type: 'test', suite, result: { state: 'pass', errors: [] } };
    const [beforeEach] = hooks.beforeEach;
    const [afterAll] = hooks.afterAll;
    const finished: Array<() => unknown> = [];
    const onTestFinished = (fn: () => unknown) => finished.push(fn);

    // A session created before the first test (a beforeAll hook) is told nothing yet. Node's undici,
    // which its answers are built on, loads as it is created, not later inside a test's run.
    const loads = containment.undiciLoads;
    bridge.attach?.(session);
    expect(calls).toEqual([]);
    expect(containment.undiciLoads).toBe(loads + 1);
    beforeEach({ task, skip: () => undefined, onTestFinished });
    expect(calls).toEqual([['drainFailures'], ['testStarted', 'agent > saves'], ['phaseChanged', 'test']]);
    // The test ends when Vitest finishes it: after its afterEach hooks and fixtures' teardown.
    expect(finished).toHaveLength(1);

    // A session created inside the test is told which test and phase run now.
    calls.length = 0;
    bridge.attach?.(session);
    expect(calls).toEqual([
      ['testStarted', 'agent > saves'],
      ['phaseChanged', 'test'],
    ]);

    calls.length = 0;
    (vi.useFakeTimers as () => unknown)();
    expect(calls).toEqual([['timersChanging']]);

    // What the agent swallowed fails the test that passed: the session's failures and the
    // requests the network policy refused (a late one is the session's to place first).
    calls.length = 0;
    failures.push({ code: 'MODEL_UNMATCHED', message: 'no fixture matched the request' });
    (session as { lateFailure?: unknown }).lateFailure = (code: string) => {
      calls.push(['lateFailure', code]);
      return false;
    };
    containment.hooks?.fail('GET https://example.com/ was refused');
    let thrown: unknown;
    try {
      finished[0]();
    } catch (error) {
      thrown = error;
    }
    expect(String(thrown)).toContain('no fixture matched the request');
    expect(String(thrown)).toContain('GET https://example.com/ was refused');
    // Vitest prints a file's failure as name and message: the code is in the name, as Jest prints it.
    expect((thrown as AggregateError).errors.map((e: Error) => [e.name, e.stack?.split(':')[0]])).toEqual([
      ['UnderstudyError [MODEL_UNMATCHED]', 'UnderstudyError [MODEL_UNMATCHED]'],
      ['UnderstudyError [UNHANDLED_REQUEST]', 'UnderstudyError [UNHANDLED_REQUEST]'],
    ]);
    expect(calls).toEqual([
      ['lateFailure', 'UNHANDLED_REQUEST'],
      ['testFinished'],
      ['phaseChanged', undefined],
      ['drainFailures'],
    ]);

    calls.length = 0;
    await afterAll();
    expect(calls).toEqual([['drainFailures'], ['fileFinished', 1]]);
    expect((globalThis as Record<symbol, unknown>)[BRIDGE_KEY]).toBeUndefined();
  });

  it.each([
    ['a count', 2, 2],
    ['an object with a count', { count: 3 }, 3],
    ['none', undefined, 0],
  ])(
    "reports the file's retries from the tests' retry option (%s), for the reporter",
    async (_, retry, expected) => {
      const testPath = join(dir, `retry-${expected}.test.mjs`);
      writeFileSync(testPath, "import { test } from 'vitest';\n");
      const { api, hooks } = fakeVitest(testPath);
      await startSession(api, { options: { traces: 'off' }, root: dir, project: '' });
      const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
      bridge!.session = undefined;
      const meta: Record<string, any> = {};
      const plain: TaskLike = {
        name: 'plain',
        type: 'test',
        file: { meta },
        result: { state: 'pass', errors: [] },
      };
      const retried: TaskLike = { ...plain, name: 'retried', ...(retry !== undefined && { retry }) };
      for (const task of [plain, retried, plain]) {
        const finished: Array<() => unknown> = [];
        hooks.beforeEach[0]({
          task,
          skip: () => undefined,
          onTestFinished: (fn: () => unknown) => finished.push(fn),
        });
        for (const fn of finished) fn();
      }
      await hooks.afterAll[0]();
      expect(meta.understudy.retryTimes).toBe(expected);
    },
  );

  it.each([
    [true, 'refuses it, naming the file that ended, and charges the running file nothing'],
    [false, "hands it to the running file's session, as an isolated worker never sees one"],
  ])(
    "given what a test of the worker's earlier file left running, a session under shared: %s %s",
    async (shared) => {
      const [first, second] = ['left-a.test.mjs', 'left-b.test.mjs'].map((name) => {
        const testPath = join(dir, name);
        writeFileSync(testPath, "import { test } from 'vitest';\n");
        return testPath;
      });
      const served: string[] = [];
      const start = async (testPath: string) => {
        const { api, hooks } = fakeVitest(testPath);
        await startSession(api, { options: { traces: 'off' }, root: dir, project: '', shared });
        const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY]!;
        bridge.session = {
          handleFetch: async (input: unknown) => {
            served.push(`fetch ${String(input)}`);
            return new Response('{}');
          },
          handleRequest: (request: Request) => {
            served.push(`request ${request.url}`);
            return new Response('{}');
          },
          acceptSocket: (offer: { url: string }) => {
            served.push(`socket ${offer.url}`);
            return {};
          },
          drainFailures: () => [],
          fileFinished: async () => [],
          lateFailure: () => false,
        } as unknown as FileSession;
        return hooks;
      };

      // The first file's test leaves work waiting, and ends.
      const a = await start(first);
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let left: Promise<unknown[]> = Promise.resolve([]);
      await a.aroundEach[0](
        async () => {
          left = gate.then(() =>
            Promise.all([
              globalThis.fetch('https://api.openai.com/v1/models').then(
                () => 'answered',
                (error: Error) => error.message,
              ),
              containment.hooks?.handle(new Request('https://api.openai.com/v1/files')),
              containment.hooks?.acceptSocket({
                url: 'wss://api.openai.com/v1/realtime',
              } as unknown as Parameters<ContainmentHooks['acceptSocket']>[0]),
              containment.hooks?.fail('GET https://tools.example.com/ reached the network layer'),
            ]),
          );
        },
        { task: { name: 'leaves', type: 'test' } },
      );
      await a.afterAll[0]();

      // It goes on while the next file runs.
      const b = await start(second);
      release();
      const [fetched, handled, accepted] = await left;
      const ended = b.afterAll[0]();
      if (shared) {
        expect(fetched).toBe(
          'jest-understudy: fetch(https://api.openai.com/v1/models) was called after the test file left-a.test.mjs finished, ' +
            'so nothing serves it. Something the file started kept running (an understudy.run or SDK call the test did ' +
            'not await, a stream still being read): await it, or abort it, before the test ends.',
        );
        expect(handled).toBeUndefined();
        expect(accepted).toBeUndefined();
        expect(served).toEqual([]);
        await expect(ended).resolves.toBeUndefined();
      } else {
        expect(fetched).toBe('answered');
        expect(served).toEqual([
          'fetch https://api.openai.com/v1/models',
          'request https://api.openai.com/v1/files',
          'socket wss://api.openai.com/v1/realtime',
        ]);
        await expect(ended).rejects.toThrow(
          'After the last test (in an afterAll hook): GET https://tools.example.com/ reached the network layer',
        );
      }
    },
  );

  it('tells the session a test a tag selection skips started and will not run, and finishes nothing', async () => {
    const testPath = join(dir, 'tags.test.mjs');
    writeFileSync(testPath, "import { test } from 'vitest';\n");
    const { api, hooks } = fakeVitest(testPath);
    const before = process.env.UNDERSTUDY_TAGS;
    process.env.UNDERSTUDY_TAGS = 'smoke';
    try {
      await startSession(api, { options: { traces: 'off' }, root: dir, project: '' });
    } finally {
      if (before === undefined) delete process.env.UNDERSTUDY_TAGS;
      else process.env.UNDERSTUDY_TAGS = before;
    }
    const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
    const calls: unknown[][] = [];
    const record =
      (name: string) =>
      (...args: unknown[]) => {
        calls.push([name, ...args]);
        return name === 'drainFailures' ? [] : undefined;
      };
    const session = Object.fromEntries(
      ['testStarted', 'testSkipped', 'phaseChanged', 'testFinished', 'drainFailures'].map((n) => [
        n,
        record(n),
      ]),
    ) as unknown as FileSession;
    bridge?.attach?.(session);
    const task: TaskLike = { name: 'untagged', type: 'test', result: { state: 'skip', errors: [] } };
    const notes: unknown[] = [];
    const finished: unknown[] = [];
    hooks.beforeEach[0]({
      task,
      skip: (note: string) => notes.push(note),
      onTestFinished: (fn: unknown) => finished.push(fn),
    });
    expect(finished).toEqual([]);
    expect(calls).toEqual([['drainFailures'], ['testStarted', 'untagged'], ['testSkipped']]);
    expect(notes).toEqual(['not tagged @smoke (UNDERSTUDY_TAGS=smoke)']);
    bridge!.session = undefined;
    await hooks.afterAll[0]();
  });

  it('names the code on the first line Vitest prints of each failure, after the trace is written', async () => {
    const testPath = join(dir, 'codes.test.mjs');
    writeFileSync(testPath, "import { test } from 'vitest';\n");
    const { api, hooks } = fakeVitest(testPath);
    await startSession(api, { options: { traces: 'off' }, root: dir, project: '' });
    const bridge = (globalThis as Record<symbol, Bridge | undefined>)[BRIDGE_KEY];
    const failures: Array<{ code: string; message: string }> = [];
    const session = {
      testStarted: () => undefined,
      phaseChanged: () => undefined,
      testFinished: () => undefined,
      drainFailures: () => failures.splice(0),
      fileFinished: async () => [{ code: 'RUN_ENDED', message: 'a call arrived after its test' }],
      fileStats: () => ({ agentRuns: 0, replayed: {}, operations: 0, unmatched: 0, staleCassettes: [] }),
    } as unknown as FileSession;
    bridge?.attach?.(session);
    // What the test body threw, as Vitest serialised it: one of ours, Node's, and a plain error.
    const errors = [
      { name: 'UnderstudyError', code: 'CONTRACT_BREACH', message: 'breaks the contract' },
      { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'not a string' },
      { name: 'Error', message: 'the agent crashed' },
    ];
    const task: TaskLike = { name: 'breaks', type: 'test', result: { state: 'fail', errors } };
    const finished: Array<() => unknown> = [];
    hooks.beforeEach[0]({
      task,
      skip: () => undefined,
      onTestFinished: (fn: () => unknown) => finished.push(fn),
    });
    failures.push({ code: 'MODEL_UNMATCHED', message: 'no fixture matched the request' });
    const thrown = (() => {
      try {
        finished[0]();
      } catch (error) {
        return error as Error;
      }
    })();
    expect([thrown?.name, thrown?.message]).toEqual([
      'UnderstudyError [MODEL_UNMATCHED]',
      'no fixture matched the request',
    ]);
    expect(errors.map((e) => e.name)).toEqual(['UnderstudyError [CONTRACT_BREACH]', 'TypeError', 'Error']);
    // Said once: a second look (Vitest's retry of the hook's errors) adds nothing.
    withCodeInName(errors[0]);
    expect(errors[0].name).toBe('UnderstudyError [CONTRACT_BREACH]');
    await expect(hooks.afterAll[0]()).rejects.toMatchObject({
      name: 'UnderstudyError [RUN_ENDED]',
      message: expect.stringContaining('a call arrived after its test'),
    });
  });

  it("reads the test file's understudy pragmas as Jest does, and a file that names none has none", () => {
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    expect(
      pragmasOf(
        file(
          'pragmas.test.mjs',
          '/**\n * @understudy-world ./shop.world.yaml\n * @understudy-tags smoke, refunds\n */\nimport { test } from "vitest";\n',
        ),
      ),
    ).toEqual({ 'understudy-world': './shop.world.yaml', 'understudy-tags': 'smoke, refunds' });
    // A docblock of other pragmas, a pragma-looking word outside the docblock, and no docblock at all.
    expect(pragmasOf(file('others.test.mjs', '/**\n * @vitest-environment node\n */\n'))).toEqual({});
    expect(
      pragmasOf(
        file('later.test.mjs', 'import { test } from "vitest";\n/** @understudy-world ./w.yaml */\n'),
      ),
    ).toEqual({});
    expect(pragmasOf(file('plain.test.mjs', "import { test } from 'vitest';\n"))).toEqual({});
  });

  it('leaves an error it cannot rename as it is', () => {
    const frozen = Object.freeze({ name: 'UnderstudyError', code: 'RUN_ENDED', message: 'm' });
    expect(withCodeInName(frozen).name).toBe('UnderstudyError');
    expect(withCodeInName(null)).toBeNull();
    expect(withCodeInName('RUN_ENDED')).toBe('RUN_ENDED');
  });
});
