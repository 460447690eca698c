/**
 * "Return a value or fail selected calls": each toolOverrides rule, as a case.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import {
  type Binding,
  type DrillSetup,
  mockTool,
  runDrills,
  ToolMockError,
  type ToolOverride,
  understudy,
  WorldFileError,
} from 'jest-understudy';

const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;
const PROBE = { packageId: 'probe', operationId: 'probe.call' } as const;

type ProbeInput = { key: string; nested?: object; list?: unknown[]; extra?: string };

/** The probe as a sync function; failures come back as `error <code>` so a sequence reads easily. */
function probe(binding: Binding) {
  const call = mockTool(binding, { mode: 'sync', operation: PROBE, input: (input: ProbeInput) => input });
  return (input: ProbeInput): string => {
    try {
      return (call(input) as { from: string }).from;
    } catch (error) {
      return `error ${(error as ToolMockError).code}`;
    }
  };
}

/** Runs the drill with an agent that calls the probe `calls` times with `input`; returns what it got. */
async function drillAnswers(drill: string, setup: DrillSetup, input: ProbeInput, calls: number) {
  const answers: string[] = [];
  const result = await runDrills({
    drill,
    setup,
    agent: async ({ binding }) => {
      const call = probe(binding);
      for (let i = 0; i < calls; i++) answers.push(call(input));
    },
  });
  return { answers, result };
}

const rule = (id: string, key: string, outcome: ToolOverride['outcome'], times?: number): ToolOverride => ({
  id,
  operation: PROBE,
  when: { arguments: { key } },
  ...(times !== undefined && { times }),
  outcome,
});

describe('tool overrides · Return a value or fail selected calls', () => {
  it('rule: add toolOverrides to the world, a scenario or a drill; for a single test, put the same rules in runDrills setup.scenario.toolOverrides', async () => {
    const busyOnce: ToolOverride = {
      id: 'busy-once',
      operation: SAVE,
      when: { arguments: { id: 'record-1' } },
      times: 1,
      outcome: { kind: 'error', code: 'BUSY', message: 'Try again', retryable: true },
    };
    const result = await runDrills({
      drill: 'playground',
      setup: { scenario: { toolOverrides: [busyOnce] } },
      agent: async ({ binding }) => {
        const save = mockTool(binding, { mode: 'async', operation: SAVE });
        await save({ id: 'record-1', text: 'a' }).catch(() => undefined);
        await save({ id: 'record-1', text: 'a' });
      },
    });
    expect(result.evidence.map((o) => o.override?.scope ?? null)).toEqual(['test', null]);
    expect(result.build.testRules).toEqual([busyOnce]);
  });

  it('rule: a Tool that declares a BUSY error can fail its first matching call (the busy-once example)', async () => {
    understudy.world.reset({ scenario: 'busy-store' });
    const save = mockTool(understudy.world.bind(), { mode: 'async', operation: SAVE });
    const first = await save({ id: 'record-1', text: 'a' }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ToolMockError);
    expect((first as ToolMockError).envelope).toEqual({
      code: 'BUSY',
      message: 'Try again',
      retryable: true,
      status: 503,
      retryAfter: 1,
    });
    await expect(save({ id: 'record-1', text: 'a' })).resolves.toMatchObject({ version: 2 });
    // Another record never matched the rule.
    understudy.world.reset({ scenario: 'busy-store' });
    await expect(save({ id: 'record-2', text: 'b' })).resolves.toMatchObject({ version: 2 });
  });

  it('rule: return gives the value without running the Tool handler or its faults, and does not pretend a state change happened', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          {
            operation: SAVE,
            outcome: { kind: 'return', value: { id: 'record-1', text: 'pretend', version: 99 } },
          },
        ],
      },
    });
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    expect(save({ id: 'record-1', text: 'pretend' })).toEqual({
      id: 'record-1',
      text: 'pretend',
      version: 99,
    });
    expect(understudy.world.state['record-store'].records['record-1']).toEqual({
      id: 'record-1',
      text: 'first draft',
      version: 1,
    });
    expect(understudy.world.events).toEqual([]); // the handler would have emitted record.saved
    // The world baseline stubs the probe for key "faulty" (a `return`): its latency fault does not run.
    const call = probe(understudy.world.bind());
    expect(call({ key: 'faulty' })).toBe('stub');
    expect(understudy.world.operations.at(-1)).not.toHaveProperty('faults');
    expect(understudy.world.state.probe.calls).toEqual({});
  });

  it('rule: a return value must match the output schema (refused when the rules are loaded)', async () => {
    const setup = {
      scenario: {
        toolOverrides: [{ operation: SAVE, outcome: { kind: 'return' as const, value: { id: 7 } } }],
      },
    };
    const error = await runDrills({ drill: 'playground', setup, agent: async () => undefined }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorldFileError);
    expect((error as WorldFileError).message).toContain(
      "runDrills({ setup }) at $.scenario.toolOverrides[0].outcome.value: does not match the output schema of record-store/records.save: $ must have required property 'text'; $.id must be string",
    );
  });

  it('rule: error returns a declared Tool error without running the handler or faults; an undeclared code is refused', async () => {
    understudy.world.reset({
      scenario: { toolOverrides: [rule('no', 'faulty', { kind: 'error', code: 'REFUSED' })] },
    });
    const call = probe(understudy.world.bind());
    expect(call({ key: 'faulty' })).toBe('error REFUSED');
    const [op] = understudy.world.operations;
    expect(op.outcome).toEqual({
      kind: 'error',
      error: { code: 'REFUSED', message: 'Refused by a rule', retryable: false, status: 409 },
    });
    expect(op).not.toHaveProperty('faults');
    expect(understudy.world.state.probe.calls).toEqual({});

    const undeclared = await runDrills({
      drill: 'playground',
      setup: { toolOverrides: [rule('x', 'k', { kind: 'error', code: 'REFUSD' })] },
      agent: async () => undefined,
    }).catch((e: unknown) => e);
    expect((undeclared as Error).message).toContain(
      'at $.toolOverrides[0].outcome.code: probe/probe.call does not declare the error "REFUSD" — did you mean "REFUSED"?',
    );
    // The same rule given to world.reset is named as that call, not as a drill's setup.
    expect(() =>
      understudy.world.reset({
        scenario: { toolOverrides: [rule('x', 'k', { kind: 'error', code: 'REFUSD' })] },
      }),
    ).toThrow(
      'understudy.world.reset({ scenario }) at $.scenario.toolOverrides[0].outcome.code: probe/probe.call does not declare the error "REFUSD"',
    );
  });

  it('rule: original uses normal synthetic behavior, including its active faults, instead of a lower-priority stub', () => {
    // The world baseline stubs key "faulty"; a higher-scope `original` rule restores the behavior and its latency fault.
    understudy.world.reset({ scenario: { toolOverrides: [rule('real', 'faulty', { kind: 'original' })] } });
    const call = probe(understudy.world.bind());
    expect(call({ key: 'faulty' })).toBe('behavior');
    const [op] = understudy.world.operations;
    expect(op.override).toEqual({ id: 'real', scope: 'test', outcome: 'original', matchCount: 1 });
    expect(op.faults).toEqual([{ id: 'probe-latency', kind: 'latency' }]);
    expect(op.latencyMs).toBe(250);
    expect(understudy.world.clock.now()).toBe(250); // sync mode: the world clock moved at once
    expect(understudy.world.state.probe.calls).toEqual({ faulty: 1 });
  });

  it('rule: rules apply to direct and HTTP calls alike, after transport decoding', async () => {
    understudy.world.reset({ scenario: 'busy-store' });
    const response = await fetch('https://records.example.test/v1/records/record-1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'over http' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { code: 'BUSY', message: 'Try again', retryable: true, status: 503, retryAfter: 1 },
    });
    // busy-once is used up by the HTTP call: the direct call that follows gets normal behavior.
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    expect(save({ id: 'record-1', text: 'direct' })).toMatchObject({ version: 2 });
    expect(understudy.world.operations.map((o) => [o.transport, o.override?.id ?? null])).toEqual([
      ['http', 'busy-once'],
      ['direct', null],
    ]);
  });

  describe('rule: permissions, valid input, budgets and idempotency remain enforced', () => {
    const stubEverything: ToolOverride[] = [
      { id: 'stub-save', operation: SAVE, outcome: { kind: 'return', value: { id: 'x', text: 'stub' } } },
      {
        id: 'stub-audit',
        operation: { packageId: 'audit', operationId: 'audit.append' },
        outcome: { kind: 'return', value: { ok: true } },
      },
      {
        id: 'stub-delete',
        operation: { packageId: 'record-store', operationId: 'records.delete' },
        outcome: { kind: 'return', value: { id: 'x', text: 'stub' } },
      },
    ];

    it('permissions: a caller the actor rules refuse never reaches the rule', () => {
      understudy.world.reset({ scenario: { toolOverrides: stubEverything } });
      const del = mockTool(understudy.world.bind({ actorId: 'intern' }), {
        mode: 'sync',
        operation: { packageId: 'record-store', operationId: 'records.delete' },
      });
      expect(() => del({ id: 'record-1' })).toThrow(
        expect.objectContaining({ code: 'PERMISSION_DENIED', status: 403 }),
      );
      expect(understudy.world.operations[0]).not.toHaveProperty('override');
      const stranger = mockTool(understudy.world.bind({ actorId: 'stranger' }), {
        mode: 'sync',
        operation: SAVE,
      });
      expect(() => stranger({ id: 'record-1', text: 'x' })).toThrow(
        'actor "stranger" is not declared in this world',
      );
    });

    it('valid input: an input the schema rejects never reaches the rule', () => {
      understudy.world.reset({ scenario: { toolOverrides: stubEverything } });
      const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
      expect(() => save({ id: 'record-1' })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(understudy.world.operations[0]).not.toHaveProperty('override');
    });

    it('budgets: calls over the budget fail with BUDGET_EXCEEDED, rule or not', async () => {
      const result = await runDrills({
        drill: 'playground',
        setup: { scenario: { toolOverrides: stubEverything } },
        agent: async ({ binding }) => {
          const append = mockTool(binding, {
            mode: 'sync',
            operation: { packageId: 'audit', operationId: 'audit.append' },
          });
          for (let i = 0; i < 4; i++) {
            try {
              append({ message: `m${i}` });
            } catch {}
          }
        },
      });
      expect(result.evidence.map((o) => (o.outcome.kind === 'ok' ? 'ok' : o.outcome.error.code))).toEqual([
        'ok',
        'ok',
        'ok',
        'BUDGET_EXCEEDED',
      ]);
      expect(result.evidence[3]).not.toHaveProperty('override');
      expect(result.evidence[3].outcome).toMatchObject({
        error: {
          status: 429,
          message: 'budget "audit-per-run" allows 3 calls per run; audit/audit.append would exceed it',
        },
      });
    });

    it('idempotency: a receipt answers before any rule (see also the receipt rule in replace-function.test.ts)', () => {
      const save = mockTool(understudy.world.bind(), {
        mode: 'sync',
        operation: SAVE,
        idempotencyKey: () => 'k',
      });
      save({ id: 'record-1', text: 'saved' });
      understudy.world.reset({ packages: ['probe'] }); // receipts of record-store stay
      expect(save({ id: 'record-1', text: 'saved' })).toMatchObject({ version: 2 });
      expect(() => save({ id: 'record-1', text: 'other' })).toThrow(
        expect.objectContaining({ code: 'IDEMPOTENCY_CONFLICT', status: 409 }),
      );
    });
  });

  it('rule: rules match an operation and optionally an actorId', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          {
            id: 'viewers',
            operation: PROBE,
            when: { actorId: 'viewer' },
            outcome: { kind: 'return', value: { from: 'viewer rule' } },
          },
        ],
      },
    });
    expect(probe(understudy.world.bind({ actorId: 'viewer' }))({ key: 'a' })).toBe('viewer rule');
    expect(probe(understudy.world.bind({ actorId: 'agent' }))({ key: 'a' })).toBe('behavior');
  });

  it('rule: each supplied argument value matches exactly, including nested objects and arrays; other top-level arguments may differ', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          {
            id: 'nested',
            operation: PROBE,
            when: { arguments: { key: 'n', nested: { a: 1, b: [1, 2] }, list: [{ x: 1 }] } },
            outcome: { kind: 'return', value: { from: 'rule' } },
          },
        ],
      },
    });
    const call = probe(understudy.world.bind());
    const base = { key: 'n', nested: { a: 1, b: [1, 2] }, list: [{ x: 1 }] };
    expect(call(base)).toBe('rule');
    expect(call({ ...base, extra: 'other top-level arguments may differ' })).toBe('rule');
    expect(call({ ...base, nested: { b: [1, 2], a: 1 } })).toBe('rule'); // key order is not a difference
    expect(call({ ...base, nested: { a: 1, b: [1, 2], c: 3 } })).toBe('behavior'); // nested: exact, not a subset
    expect(call({ ...base, nested: { a: 1, b: [2, 1] } })).toBe('behavior'); // array order matters
    expect(call({ ...base, nested: { a: 1, b: [1, 2, 3] } })).toBe('behavior');
    expect(call({ ...base, list: [{ x: 1, y: 2 }] })).toBe('behavior');
    expect(call({ key: 'n', nested: { a: 1, b: [1, 2] } })).toBe('behavior'); // a supplied key missing
  });

  it('rule: priority is world baseline → named scenario → drill → per-test setup', async () => {
    const { answers, result } = await drillAnswers(
      'scopes-drill',
      { toolOverrides: [rule('t-priority', 'priority', { kind: 'return', value: { from: 'test' } }, 1)] },
      { key: 'priority' },
      5,
    );
    expect(answers).toEqual(['test', 'drill', 'scenario', 'world', 'behavior']);
    expect(result.evidence.map((o) => o.override && `${o.override.scope}:${o.override.id}`)).toEqual([
      'test:t-priority',
      'drill:d-priority',
      'scenario:s-priority',
      'world:w-priority',
      undefined,
    ]);
  });

  it('rule: within a scope, later matching rules win', () => {
    // In the world file, w-earlier and then w-later both match key "later".
    expect(probe(understudy.world.bind())({ key: 'later' })).toBe('later');
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          rule('first', 'x', { kind: 'return', value: { from: 'first' } }),
          rule('second', 'x', { kind: 'return', value: { from: 'second' } }, 1),
        ],
      },
    });
    const call = probe(understudy.world.bind());
    expect([call({ key: 'x' }), call({ key: 'x' })]).toEqual(['second', 'first']);
  });

  it('rule: a higher-scope rule with the same id replaces the lower rule entirely', async () => {
    // world "shared" (unlimited) is replaced by scenario "shared" (times: 1) in scopes-drill.
    const { answers, result } = await drillAnswers('scopes-drill', {}, { key: 'replace' }, 2);
    expect(answers[0]).toBe('scenario shared');
    expect(result.evidence[0].override).toEqual({
      id: 'shared',
      scope: 'scenario',
      outcome: 'return',
      matchCount: 1,
    });
  });

  it('rule: once its times limit is consumed, matching continues to other rules, then normal Tool behavior — not the replaced definition', async () => {
    // key "replace": scenario "shared" (times 1) replaced world "shared": after it, normal behavior.
    const replaced = await drillAnswers('scopes-drill', {}, { key: 'replace' }, 3);
    expect(replaced.answers).toEqual(['scenario shared', 'behavior', 'behavior']);
    // key "fall": scenario s-once (times 1), then the other (world) rule w-fallback.
    const fallthrough = await drillAnswers('scopes-drill', {}, { key: 'fall' }, 3);
    expect(fallthrough.answers).toEqual(['scenario once', 'world fallback', 'world fallback']);
  });

  it('rule: omit times for unlimited matches', () => {
    understudy.world.reset({
      scenario: { toolOverrides: [rule('always', 'u', { kind: 'error', code: 'REFUSED' })] },
    });
    const call = probe(understudy.world.bind());
    const answers = Array.from({ length: 25 }, () => call({ key: 'u' }));
    expect(new Set(answers)).toEqual(new Set(['error REFUSED']));
    expect(understudy.world.operations.at(-1)?.override?.matchCount).toBe(25);
  });

  it('rule: inline scenarios remain complete starting setups, not overlays of the world baseline', async () => {
    // The drill names scenario busy-store; an inline scenario replaces it entirely:
    // no busy-once rule, and its state replaces the world's initial state (not merged).
    const result = await runDrills({
      drill: 'save-record',
      setup: {
        scenario: {
          state: {
            'record-store': { records: { 'record-9': { id: 'record-9', text: 'only me', version: 1 } } },
          },
        },
      },
      agent: async ({ binding }) => {
        const save = mockTool(binding, { mode: 'async', operation: SAVE });
        await save({ id: 'record-1', text: 'final' });
      },
    });
    expect(result.evidence[0].override).toBeUndefined(); // busy-once is not there
    expect(Object.keys(result.state['record-store'].records).sort()).toEqual(['record-1', 'record-9']);
    expect(result.state['record-store'].records['record-1'].version).toBe(1); // a new record, not version 2
    expect(result.state.audit).toEqual({}); // a package the scenario does not list starts empty
    expect(result.build.scenario).toEqual({
      inline: {
        state: {
          'record-store': { records: { 'record-9': { id: 'record-9', text: 'only me', version: 1 } } },
        },
      },
    });
  });
});
