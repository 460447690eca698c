/**
 * The engine beyond the override rules (tool-overrides.test.ts): built-in behaviors, permissions, budgets,
 * faults (seeded), the world clock and Jest fake timers, scheduled events.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { type FaultDef, mockTool, runDrills, type ToolMockError, understudy } from 'jest-understudy';

const op = (operationId: string) => ({ packageId: 'record-store', operationId });
const sync = (operationId: string, actorId?: string) =>
  mockTool(understudy.world.bind(actorId ? { actorId } : {}), { mode: 'sync', operation: op(operationId) });
const outcome = (f: () => unknown): unknown => {
  try {
    return f();
  } catch (error) {
    return (error as ToolMockError).code;
  }
};

afterEach(() => {
  jest.useRealTimers();
});

describe('built-in behaviors on a keyed collection', () => {
  it('get returns the record, or the declared NOT_FOUND', () => {
    expect(sync('records.get')({ id: 'record-2' })).toEqual({ id: 'record-2', text: 'notes', version: 1 });
    expect(outcome(() => sync('records.get')({ id: 'nope' }))).toBe('NOT_FOUND');
  });

  it('list returns every record, filtered by the given input fields', () => {
    const list = sync('records.list');
    expect(list({})).toHaveLength(2);
    expect(list({ text: 'notes' })).toEqual([{ id: 'record-2', text: 'notes', version: 1 }]);
    expect(list({ version: 2 })).toEqual([]);
  });

  it('create stores the input (plus `set` fields) under a generated key, emits, and refuses an existing key', () => {
    const create = sync('records.create');
    expect(create({ text: 'one' })).toEqual({ text: 'one', id: 'rec-1', version: 1 });
    expect(create({ text: 'two' })).toEqual({ text: 'two', id: 'rec-2', version: 1 });
    expect(create({ id: 'mine', text: 'three' })).toEqual({ id: 'mine', text: 'three', version: 1 });
    expect(outcome(() => create({ id: 'record-1', text: 'dup' }))).toBe('CONFLICT');
    expect(understudy.world.events.map((e) => e.event.type)).toEqual([
      'record.created',
      'record.created',
      'record.created',
    ]);
    expect(understudy.world.state['record-store'].records['rec-2']).toEqual({
      text: 'two',
      id: 'rec-2',
      version: 1,
    });
  });

  it('delete removes and returns the record, or fails with NOT_FOUND', () => {
    const del = sync('records.delete');
    expect(del({ id: 'record-2' })).toMatchObject({ id: 'record-2' });
    expect(outcome(() => del({ id: 'record-2' }))).toBe('NOT_FOUND');
    expect(Object.keys(understudy.world.state['record-store'].records)).toEqual(['record-1']);
  });

  it('the evidence and the caller get copies: changing a returned value changes neither the state nor the log', () => {
    const got = sync('records.get')({ id: 'record-1' }) as { text: string };
    got.text = 'mutated by the agent';
    expect(understudy.world.state['record-store'].records['record-1'].text).toBe('first draft');
    expect(understudy.world.operations[0].outcome).toMatchObject({ value: { text: 'first draft' } });
    const state = understudy.world.state;
    state['record-store'].records['record-1'].text = 'mutated snapshot';
    expect(understudy.world.state['record-store'].records['record-1'].text).toBe('first draft');
  });
});

describe('permissions', () => {
  it('an actor may call what `allow` covers and `deny` does not', () => {
    expect(outcome(() => sync('records.get', 'viewer')({ id: 'record-1' }))).toMatchObject({
      id: 'record-1',
    });
    expect(outcome(() => sync('records.save', 'viewer')({ id: 'record-1', text: 'x' }))).toBe(
      'PERMISSION_DENIED',
    );
    expect(outcome(() => sync('records.save', 'intern')({ id: 'record-1', text: 'x' }))).toMatchObject({
      version: 2,
    });
    expect(outcome(() => sync('records.delete', 'intern')({ id: 'record-1' }))).toBe('PERMISSION_DENIED');
    expect(understudy.world.operations.map((o) => o.actorId)).toEqual([
      'viewer',
      'viewer',
      'intern',
      'intern',
    ]);
  });
});

describe('budgets', () => {
  it('count calls per run: each understudy.run starts with a full budget', async () => {
    const append = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: { packageId: 'audit', operationId: 'audit.append' },
    });
    const fourCalls = async () => {
      const codes: string[] = [];
      for (let i = 0; i < 4; i++)
        codes.push(
          await append({ message: 'm' }).then(
            () => 'ok',
            (e: ToolMockError) => e.code,
          ),
        );
      return codes;
    };
    const first = await understudy.run(fourCalls);
    const second = await understudy.run(fourCalls);
    expect(first.output).toEqual(['ok', 'ok', 'ok', 'BUDGET_EXCEEDED']);
    expect(second.output).toEqual(['ok', 'ok', 'ok', 'BUDGET_EXCEEDED']);
    expect(first.operations).toHaveLength(4);
  });
});

describe('faults on the normal path', () => {
  const fault = (f: Omit<FaultDef, 'operation'>): FaultDef => ({ operation: op('records.get'), ...f });

  it('error on given call numbers (a declared code)', () => {
    understudy.world.reset({
      scenario: { faults: [fault({ id: 'third', kind: 'error', code: 'NOT_FOUND', onCalls: [3] })] },
    });
    const get = sync('records.get');
    const got = [1, 2, 3, 4].map(() => outcome(() => (get({ id: 'record-1' }) as { id: string }).id));
    expect(got).toEqual(['record-1', 'record-1', 'NOT_FOUND', 'record-1']);
    expect(understudy.world.operations[2].faults).toEqual([{ id: 'third', kind: 'error' }]);
  });

  it('at a seeded rate: the same seed fires on the same calls, another seed on others; `times` caps it', async () => {
    const pattern = async (seed: number, times?: number) => {
      const result = await runDrills({
        drill: 'playground',
        seed,
        setup: {
          scenario: {
            faults: [
              fault({ id: 'flaky', kind: 'error', code: 'NOT_FOUND', rate: 0.5, ...(times && { times }) }),
            ],
          },
        },
        agent: async ({ binding }) => {
          const get = mockTool(binding, { mode: 'sync', operation: op('records.get') });
          for (let i = 0; i < 24; i++) outcome(() => get({ id: 'record-1' }));
        },
      });
      return result.evidence.map((o) => (o.outcome.kind === 'error' ? 'x' : '.')).join('');
    };
    const seven = await pattern(7);
    expect(await pattern(7)).toBe(seven);
    expect(seven).toMatch(/x.*\.|\..*x/);
    expect(await pattern(8)).not.toBe(seven);
    expect((await pattern(7, 2)).replace(/\./g, '')).toBe('xx');
  });

  it('latency moves the world clock; async calls wait for it on Jest fake timers', async () => {
    understudy.world.reset({ scenario: { faults: [fault({ id: 'slow', kind: 'latency', ms: 1500 })] } });
    jest.useFakeTimers();
    const get = mockTool(understudy.world.bind(), { mode: 'async', operation: op('records.get') });
    let done = false;
    const pending = get({ id: 'record-1' }).then(() => {
      done = true;
    });
    await jest.advanceTimersByTimeAsync(1499);
    expect(done).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
    expect(understudy.world.operations[0]).toMatchObject({
      latencyMs: 1500,
      clockMs: 0,
      faults: [{ id: 'slow', kind: 'latency' }],
    });
    expect(understudy.world.clock.now()).toBe(1500);
  });

  it('timeout fails with TIMEOUT (retryable) after its time, without running the behavior', () => {
    understudy.world.reset({
      scenario: {
        faults: [{ id: 'hang', operation: op('records.save'), kind: 'timeout', ms: 5000, onCalls: [1] }],
      },
    });
    const save = sync('records.save');
    let error: ToolMockError | undefined;
    try {
      save({ id: 'record-1', text: 'x' });
    } catch (e) {
      error = e as ToolMockError;
    }
    expect(error?.envelope).toEqual({
      code: 'TIMEOUT',
      message: 'record-store/records.save timed out after 5000 ms',
      retryable: true,
      status: 504,
    });
    expect(understudy.world.clock.now()).toBe(5000); // sync mode: reported and applied to the clock at once
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(1);
    expect(save({ id: 'record-1', text: 'x' })).toMatchObject({ version: 2 });
  });
});

describe('the world clock and scheduled events', () => {
  it('follows Jest modern fake timers: scheduled events fire when the clock passes them', () => {
    jest.useFakeTimers();
    expect(understudy.world.clock.faked).toBe(true);
    jest.advanceTimersByTime(59_999);
    expect(understudy.world.clock.now()).toBe(59_999);
    expect(understudy.world.state['record-store'].records['record-2']).toBeDefined();
    jest.advanceTimersByTime(1);
    expect(understudy.world.state['record-store'].records['record-2']).toBeUndefined();
    expect(understudy.world.events).toEqual([
      {
        seq: 1,
        clockMs: 60_000,
        packageId: 'record-store',
        source: { scheduled: 'nightly-cleanup' },
        event: { type: 'cleanup.ran' },
      },
    ]);
  });

  it('does not follow the wall clock with real timers (advance() moves it)', async () => {
    expect(understudy.world.clock.faked).toBe(false);
    await new Promise((r) => setTimeout(r, 5));
    expect(understudy.world.clock.now()).toBe(0);
    understudy.world.clock.advance(60_000);
    expect(understudy.world.events.map((e) => e.event.type)).toEqual(['cleanup.ran']);
  });

  it('operations record the clock when they arrive; events due before a call fire before it', () => {
    jest.useFakeTimers();
    const get = sync('records.get');
    jest.advanceTimersByTime(30_000);
    get({ id: 'record-2' });
    jest.advanceTimersByTime(30_000);
    expect(outcome(() => get({ id: 'record-2' }))).toBe('NOT_FOUND');
    expect(understudy.world.operations.map((o) => o.clockMs)).toEqual([30_000, 60_000]);
  });
});

describe('idempotency', () => {
  it('keyFrom takes the key from an input field when the transport gives none', () => {
    const append = mockTool(understudy.world.bind(), {
      mode: 'sync',
      operation: { packageId: 'audit', operationId: 'audit.append' },
    });
    const first = append({ message: 'saved record-1', requestId: 'req-1' });
    expect(append({ message: 'saved record-1', requestId: 'req-1' })).toEqual(first);
    append({ message: 'saved record-1', requestId: 'req-2' });
    expect(Object.keys(understudy.world.state.audit.entries)).toEqual(['entry-1', 'entry-2']);
    expect(understudy.world.operations[1]).toMatchObject({
      idempotencyKey: 'req-1',
      idempotent: { replayed: true, of: 1 },
    });
  });
});
