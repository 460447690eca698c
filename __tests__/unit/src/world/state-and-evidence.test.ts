/**
 * "State, reset and evidence" and "Interception boundaries": each rule of the world, as a case.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { type DrillSetup, mockTool, runDrills, ToolMockError, understudy } from 'jest-understudy';
import { getRuntime } from '../../../../src/sandbox/runtime';

jest.mock('../../../../fixtures/worlds/behaviors/stamp', () => ({ stamp: () => 'stamp from a jest.mock' }));

const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;
const ARCHIVE = { packageId: 'record-store', operationId: 'records.archive' } as const;
const PROBE = { packageId: 'probe', operationId: 'probe.call' } as const;

/** Drains the failures the world recorded for the current test (so the case can look at them). */
const drainFailures = () => getRuntime().drainFailures();

describe('world · State, reset and evidence', () => {
  it('rule: a deterministic behavior module changes records, emits events and schedules consequences', () => {
    const archive = mockTool(understudy.world.bind(), { mode: 'sync', operation: ARCHIVE });
    expect(archive({ id: 'record-2' })).toEqual({
      id: 'record-2',
      text: 'notes',
      version: 1,
      archived: true,
    });
    expect(understudy.world.state['record-store'].records['record-2'].archived).toBe(true);
    expect(understudy.world.events).toEqual([
      {
        seq: 1,
        clockMs: 0,
        packageId: 'record-store',
        source: { operation: 1 },
        event: { type: 'record.archived', id: 'record-2' },
      },
    ]);
    // The consequence fires when the world clock passes +30 s.
    understudy.world.clock.advance(29_999);
    expect(understudy.world.state['record-store'].records['record-2']).toBeDefined();
    understudy.world.clock.advance(1);
    expect(understudy.world.state['record-store'].records['record-2']).toBeUndefined();
    expect(understudy.world.events.at(-1)).toEqual({
      seq: 2,
      clockMs: 30_000,
      packageId: 'record-store',
      source: { scheduled: '#1+30000ms' },
      event: { type: 'record.purged', id: 'record-2' },
    });
  });

  it("rule: behavior modules are TypeScript loaded through Jest's module system (the test file's registry and transform)", () => {
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    // The module the world runs is the instance this test file's registry holds.
    const behaviors = require('../../../../fixtures/worlds/behaviors/records') as {
      handled: { saves: number };
    };
    const before = behaviors.handled.saves;
    save({ id: 'record-1', text: 'x' });
    expect(behaviors.handled.saves).toBe(before + 1);
    expect(understudy.world.events[0].event).toMatchObject({ note: 'real stamp' });
    // Loaded again after a registry reset, it is transformed again and gets this file's jest.mock.
    jest.resetModules();
    understudy.world.load(`${__dirname}/../../../../fixtures/worlds/records.world.yaml`);
    mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE })({ id: 'record-1', text: 'y' });
    expect(understudy.world.events[0].event).toMatchObject({
      type: 'record.saved',
      note: 'stamp from a jest.mock',
    });
  });

  it('rule: a failed handler rolls its state back (its events and consequences are dropped)', () => {
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    // The handler writes the record, then fails with the declared TOO_LONG.
    expect(() => save({ id: 'record-1', text: 'x'.repeat(41) })).toThrow(
      expect.objectContaining({
        code: 'TOO_LONG',
        status: 422,
        message: expect.stringContaining('41 characters; at most 40'),
      }),
    );
    expect(understudy.world.state['record-store'].records['record-1']).toEqual({
      id: 'record-1',
      text: 'first draft',
      version: 1,
    });
    expect(understudy.world.events).toEqual([]);
  });

  it('rule: a handler that throws, or fails with an undeclared code, is a defect: rolled back, BEHAVIOR_ERROR, and the test is failed', () => {
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    expect(() => save({ id: 'record-1', text: 'x', options: { fail: 'throw' } })).toThrow(
      expect.objectContaining({ code: 'BEHAVIOR_ERROR', status: 500 }),
    );
    expect(() => save({ id: 'record-1', text: 'x', options: { fail: 'undeclared' } })).toThrow(
      expect.objectContaining({ code: 'BEHAVIOR_ERROR' }),
    );
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(1);
    expect(drainFailures()).toEqual([
      {
        code: 'BEHAVIOR_ERROR',
        message: 'World defect: the behavior of record-store/records.save threw Error: the disk is on fire',
      },
      {
        code: 'BEHAVIOR_ERROR',
        message:
          'World defect: the behavior of record-store/records.save failed with "EXPLODED", which the operation does not declare (it has "BUSY", "TOO_LONG", "LOCKED")',
      },
    ]);
  });

  it('rule: select a behavior with setup.tools.behaviorOverrides', async () => {
    const result = await runDrills({
      drill: 'playground',
      setup: { tools: { behaviorOverrides: [{ operation: SAVE, behavior: 'slow-save' }] } },
      agent: async ({ binding }) => {
        const save = mockTool(binding, { mode: 'async', operation: SAVE });
        return save({ id: 'record-1', text: 'quiet' });
      },
    });
    expect(result.runs[0].output).toEqual({ id: 'record-1', text: 'QUIET', version: 2 });
    // A built-in works too, and a module by path (relative to the world file).
    const builtin = await runDrills({
      drill: 'playground',
      setup: {
        tools: {
          behaviorOverrides: [
            {
              operation: SAVE,
              behavior: { builtin: 'upsert', collection: 'records', merge: true, set: { version: 0 } },
            },
          ],
        },
      },
      agent: async ({ binding }) =>
        mockTool(binding, { mode: 'sync', operation: SAVE })({ id: 'record-1', text: 'merged' }),
    });
    expect(builtin.runs[0].output).toEqual({ id: 'record-1', text: 'merged', version: 0 });
    // The file world itself is untouched by a drill's swap.
    expect(
      mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE })({ id: 'record-1', text: 'x' }),
    ).toMatchObject({
      text: 'x',
      version: 2,
    });
  });

  it('rule: mockTool calls the same engine, so function mocks and protocol clients share state and evidence', async () => {
    mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE })({
      id: 'record-1',
      text: 'direct write',
    });
    const read = await fetch('https://records.example.test/v1/records/record-1');
    expect(await read.json()).toMatchObject({ text: 'direct write', version: 2 });
    await fetch('https://records.example.test/v1/records/record-1', {
      method: 'PUT',
      body: JSON.stringify({ text: 'http write' }),
    });
    expect(
      mockTool(understudy.world.bind(), {
        mode: 'sync',
        operation: { packageId: 'record-store', operationId: 'records.get' },
      })({ id: 'record-1' }),
    ).toMatchObject({
      text: 'http write',
      version: 3,
    });
    expect(understudy.world.operations.map((o) => `${o.seq} ${o.transport} ${o.operationId}`)).toEqual([
      '1 direct records.save',
      '2 http records.get',
      '3 http records.save',
      '4 direct records.get',
    ]);
  });

  it("rule: an override's identity, source scope, selected outcome and match count are recorded with the operation", async () => {
    const result = await runDrills({
      drill: 'scopes-drill',
      setup: {
        toolOverrides: [
          { operation: PROBE, when: { arguments: { key: 'anon' } }, outcome: { kind: 'original' } },
        ],
      },
      agent: async ({ binding }) => {
        const call = mockTool(binding, { mode: 'sync', operation: PROBE });
        for (const key of ['priority', 'priority', 'anon', 'anon', 'none']) call({ key });
      },
    });
    expect(result.evidence.map((o) => o.override ?? null)).toEqual([
      { id: 'd-priority', scope: 'drill', outcome: 'return', matchCount: 1 },
      { id: 's-priority', scope: 'scenario', outcome: 'return', matchCount: 1 },
      // a rule without an id is named by scope and position
      { id: 'test#0', scope: 'test', outcome: 'original', matchCount: 1 },
      { id: 'test#0', scope: 'test', outcome: 'original', matchCount: 2 },
      null,
    ]);
  });

  it('rule: one-shot consumption is durable even when the selected Tool handler rolls back', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [{ id: 'real-once', operation: SAVE, times: 1, outcome: { kind: 'original' } }],
      },
    });
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    expect(() => save({ id: 'record-1', text: 'y'.repeat(50) })).toThrow(ToolMockError); // handler fails, rolls back
    save({ id: 'record-1', text: 'short' });
    const [failed, next] = understudy.world.operations;
    expect(failed.override).toEqual({ id: 'real-once', scope: 'test', outcome: 'original', matchCount: 1 });
    expect(failed.outcome).toMatchObject({ kind: 'error', error: { code: 'TOO_LONG' } });
    expect(next.override).toBeUndefined(); // the one shot stayed consumed
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(2);
  });

  it('rule: whole-world reset restores initial rule counts with the other state (and budgets, receipts, clock, evidence)', () => {
    understudy.world.reset({ scenario: 'busy-store' });
    const save = mockTool(understudy.world.bind(), {
      mode: 'sync',
      operation: SAVE,
      idempotencyKey: () => 'same',
    });
    expect(() => save({ id: 'record-1', text: 'a' })).toThrow(expect.objectContaining({ code: 'BUSY' }));
    save({ id: 'record-1', text: 'a' });
    understudy.world.clock.advance(60_000); // nightly-cleanup fires: record-2 deleted
    expect(understudy.world.state['record-store'].records['record-2']).toBeUndefined();

    understudy.world.reset();
    expect(understudy.world.state['record-store'].records).toEqual({
      'record-1': { id: 'record-1', text: 'first draft', version: 1 },
      'record-2': { id: 'record-2', text: 'notes', version: 1 },
    });
    expect(understudy.world.clock.now()).toBe(0);
    expect(understudy.world.operations).toEqual([]);
    expect(understudy.world.events).toEqual([]);
    // busy-once counts again from zero; the receipt for key "same" is gone.
    expect(() => save({ id: 'record-1', text: 'a' })).toThrow(expect.objectContaining({ code: 'BUSY' }));
    expect(save({ id: 'record-1', text: 'a' })).toMatchObject({ version: 2 });
    expect(understudy.world.operations[1].idempotent).toBeUndefined();
  });

  it('rule: package reset restores state and counts only for those packages', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          { id: 'save-once', operation: SAVE, times: 1, outcome: { kind: 'error', code: 'LOCKED' } },
          { id: 'probe-once', operation: PROBE, times: 1, outcome: { kind: 'error', code: 'REFUSED' } },
        ],
      },
    });
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    const call = mockTool(understudy.world.bind(), { mode: 'sync', operation: PROBE });
    const code = (f: () => unknown) => {
      try {
        f();
        return 'ok';
      } catch (e) {
        return (e as ToolMockError).code;
      }
    };
    expect([
      code(() => save({ id: 'record-1', text: 'a' })),
      code(() => save({ id: 'record-1', text: 'b' })),
    ]).toEqual(['LOCKED', 'ok']);
    expect([code(() => call({ key: 'k' })), code(() => call({ key: 'k' }))]).toEqual(['REFUSED', 'ok']);

    understudy.world.reset({ packages: ['probe'] });
    expect(understudy.world.state.probe).toEqual({ calls: {} });
    expect(code(() => call({ key: 'k' }))).toBe('REFUSED'); // probe's rule counts again
    expect(code(() => save({ id: 'record-1', text: 'c' }))).toBe('ok'); // record-store's did not
    expect(understudy.world.state['record-store'].records['record-1']).toMatchObject({
      text: 'c',
      version: 3,
    });
    expect(understudy.world.operations).toHaveLength(6); // evidence is kept
    expect(() => understudy.world.reset({ packages: ['record-stor'] })).toThrow(
      'unknown package "record-stor" (did you mean "record-store"?)',
    );
  });

  it('rule: every test starts from the initial state (the world resets between tests)', () => {
    expect(understudy.world.operations).toEqual([]);
    expect(understudy.world.state['record-store'].records['record-1'].version).toBe(1);
  });

  it('rule: per-test rules are compiled into the derived build and retained in its report', async () => {
    const setup: DrillSetup = {
      scenario: {
        toolOverrides: [
          { id: 'lock', operation: SAVE, times: 1, outcome: { kind: 'error', code: 'LOCKED' } },
        ],
      },
      toolOverrides: [
        { id: 'probe-stub', operation: PROBE, outcome: { kind: 'return', value: { from: 'test' } } },
      ],
    };
    const result = await runDrills({ drill: 'save-record', setup, seed: 42, agent: async () => undefined });
    expect(result.build).toEqual({
      format: 'jest-understudy/drill-build@1',
      world: {
        name: 'records',
        hash: understudy.world.hash,
        file: expect.stringMatching(/records\.world\.yaml$/),
      },
      drill: 'save-record',
      scenario: { inline: {} },
      testRules: [
        { id: 'lock', operation: SAVE, times: 1, outcome: { kind: 'error', code: 'LOCKED' } },
        { id: 'probe-stub', operation: PROBE, outcome: { kind: 'return', value: { from: 'test' } } },
      ],
      behaviorOverrides: [],
      actorId: 'agent',
      trials: 1,
      seed: 42,
    });
    expect(result.seed).toBe(42);
    // The build is plain JSON: it does not capture test closures, application code or the model.
    expect(JSON.parse(JSON.stringify(result.build))).toEqual(result.build);
  });

  it('rule: reproduction with the exact build and seed restores those rules (reinstall test-side adapters with the same harness)', async () => {
    const agent = async ({ binding }: { binding: import('jest-understudy').Binding }) => {
      // The adapter is reinstalled by the agent function every time: the build does not hold it.
      const save = mockTool(binding, { mode: 'sync', operation: SAVE });
      for (const text of ['a', 'b']) {
        try {
          save({ id: 'record-1', text });
        } catch {}
      }
    };
    const first = await runDrills({
      drill: 'playground',
      setup: {
        toolOverrides: [
          { id: 'lock', operation: SAVE, times: 1, outcome: { kind: 'error', code: 'LOCKED' } },
        ],
      },
      agent,
    });
    const again = await runDrills({
      build: JSON.parse(JSON.stringify(first.build)),
      seed: first.seed,
      agent,
    });
    expect(again.evidence).toEqual(first.evidence);
    expect(again.evidence[0].override).toMatchObject({ id: 'lock', scope: 'test' });
    expect(again.build).toEqual(first.build);
  });
});

describe('world · Interception boundaries', () => {
  it('rule: mockTool never falls through to a real dependency (not even when the world fails the call)', () => {
    let real = 0;
    const client = {
      save: (_input: object) => {
        real++;
        return 'real';
      },
    };
    jest
      .spyOn(client, 'save')
      .mockImplementation(
        mockTool(understudy.world.bind({ actorId: 'viewer' }), { mode: 'sync', operation: SAVE }),
      );
    expect(() => client.save({ id: 'record-1', text: 'x' })).toThrow(
      expect.objectContaining({ code: 'PERMISSION_DENIED' }),
    );
    expect(() => client.save({ nonsense: true })).toThrow(
      expect.objectContaining({ code: 'PERMISSION_DENIED' }),
    );
    expect(real).toBe(0);
  });

  it('rule: an HTTP request to a world host that no operation serves fails the test (nothing leaks out)', async () => {
    const response = await fetch('https://records.example.test/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'UNKNOWN_OPERATION', status: 404 } });
    const wrongMethod = await fetch('https://records.example.test/v1/records/record-1', {
      method: 'POST',
      body: '{}',
    });
    expect(wrongMethod.status).toBe(405);
    const failures = drainFailures();
    expect(failures.map((f) => f.code)).toEqual(['UNKNOWN_OPERATION', 'UNKNOWN_OPERATION']);
    expect(failures[0].message).toContain(
      'GET https://records.example.test/v1/nothing-here: package "record-store" of the world has no such route',
    );
    expect(failures[0].message).toContain('GET /records/{id} (records.get)');
    expect(failures[1].message).toContain('does not accept POST (it accepts GET, PUT, DELETE)');
  });
});
