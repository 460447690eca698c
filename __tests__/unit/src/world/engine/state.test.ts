/**
 * A whole reset replaces everything the engine accumulated (one EngineState object): the same
 * calls after a reset answer what they answered on a new engine, whatever they touched —
 * generated keys, idempotency receipts, fault counts and seeded rates, budgets, sequence
 * numbers, scheduled events, events and evidence. A part reset keeps the clock and evidence going.
 */
import { describe, expect, it } from '@jest/globals';
import { compileWorld } from '../../../../../src/world/compile';
import { WorldEngine } from '../../../../../src/world/engine/engine';
import type { WorldDefinition } from '../../../../../src/world/model';
import type { WorldFile } from '../../../../../src/world/types';

const file: WorldFile = {
  name: 'reset',
  seed: 3,
  budgets: [{ id: 'per-run', maxCalls: 10 }],
  packages: [
    {
      id: 'store',
      kind: 'service',
      bindings: ['direct'],
      state: { items: {} },
      operations: [
        {
          id: 'add',
          input: {
            type: 'object',
            properties: { text: { type: 'string' }, requestId: { type: 'string' } },
            required: ['text'],
          },
          errors: [{ code: 'BUSY', status: 503 }],
          idempotency: { keyFrom: 'requestId' },
          behavior: { builtin: 'create', collection: 'items', generate: 'item-', emits: 'item.added' },
        },
      ],
    },
  ],
  faults: [
    {
      id: 'flaky',
      operation: { packageId: 'store', operationId: 'add' },
      kind: 'error',
      code: 'BUSY',
      rate: 0.4,
    },
  ],
  events: [
    {
      id: 'tick',
      atMs: 5,
      packageId: 'store',
      apply: { collection: 'items', key: 'ticked', set: { at: 5 } },
    },
  ],
};

function definition(): WorldDefinition {
  const compiled = compileWorld(file, { dir: __dirname });
  if ('findings' in compiled) throw new Error(JSON.stringify(compiled.findings));
  return compiled.definition;
}

/** Calls that touch every part of the state, and what the world looks like after them. */
function exercise(engine: WorldEngine) {
  const outcomes = [];
  for (let i = 0; i < 11; i++) {
    // Every third call repeats one request (the same key and input): once it has succeeded, a replay.
    const input = i % 3 === 0 ? { text: 'same', requestId: 'same' } : { text: `t${i}`, requestId: `r${i}` };
    outcomes.push(
      engine.call({ packageId: 'store', operationId: 'add', input }, 'direct', 'sync', undefined).outcome,
    );
    engine.clock.advance(1);
  }
  return {
    outcomes,
    state: engine.snapshot(),
    operations: [...engine.operations],
    events: [...engine.events],
  };
}

describe('the engine state a reset replaces', () => {
  it('the calls after a whole reset answer as on a new engine', () => {
    const fresh = exercise(new WorldEngine(definition()));
    const engine = new WorldEngine(definition());
    const first = exercise(engine);
    expect(first).toEqual(fresh);
    // The run touched what a forgetful reset would carry over: a receipt replayed, a fault fired,
    // the budget ran out, a generated key, the scheduled event.
    expect(first.operations.some((op) => op.idempotent?.replayed)).toBe(true);
    expect(first.operations.some((op) => op.faults?.some((f) => f.id === 'flaky'))).toBe(true);
    expect(first.outcomes.some((o) => o.kind === 'error' && o.error.code === 'BUDGET_EXCEEDED')).toBe(true);
    expect(Object.keys(first.state.store.items)).toEqual(expect.arrayContaining(['item-1', 'ticked']));

    engine.reset();
    expect(engine.snapshot()).toEqual({ store: { items: {} } });
    expect(engine.operations).toEqual([]);
    expect(engine.clock.now()).toBe(0);
    expect(exercise(engine)).toEqual(fresh);
  });

  it('a part reset restores the package and keeps the clock and evidence going', () => {
    const engine = new WorldEngine(definition());
    exercise(engine);
    const seen = engine.operations.length;
    const now = engine.clock.now();
    engine.reset(['store']);
    expect(engine.snapshot()).toEqual({ store: { items: {} } });
    expect(engine.operations).toHaveLength(seen);
    expect(engine.clock.now()).toBe(now);
  });
});
