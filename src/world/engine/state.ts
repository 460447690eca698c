/**
 * Everything a world accumulates while tests call it, in one object: a whole reset replaces
 * it with `freshState()`, so a new field cannot be forgotten by the reset.
 */

import type { Handler } from '../behaviors';
import type { WorldClock } from '../clock';
import type { WorldDefinition } from '../model';
import type { OperationRecord, ScheduledEventDef, WorldEvent, WorldEventPayload, WorldState } from '../types';
import type { EngineHooks } from './contract';

export type Scheduled =
  | { due: number; order: number; packageId: string; kind: 'definition'; def: ScheduledEventDef }
  | { due: number; order: number; packageId: string; kind: 'handler'; handler: Handler; source: string }
  | {
      due: number;
      order: number;
      packageId: string;
      kind: 'event';
      event: WorldEventPayload;
      source: string;
    };

export interface Receipt {
  input: unknown;
  value: unknown;
  seq: number;
  packageId: string;
}

export interface EngineState {
  world: WorldState;
  evidence: OperationRecord[];
  eventLog: WorldEvent[];
  seq: number;
  eventSeq: number;
  /** Successful results by `operation key \0 idempotency key`. */
  receipts: Map<string, Receipt>;
  /** Calls counted against each budget, per run (calls outside runs share one object). */
  budgetCounts: WeakMap<object, number[]>;
  outsideRuns: object;
  faultCounts: Map<string, { calls: number; fired: number }>;
  randoms: Map<string, () => number>;
  /** Generated keys handed out, by `package \0 collection \0 prefix`. */
  keyCounters: Map<string, number>;
  /** Scheduled items in time order (then insertion order). */
  pending: Scheduled[];
  order: number;
}

export function freshState(): EngineState {
  return {
    world: {},
    evidence: [],
    eventLog: [],
    seq: 0,
    eventSeq: 0,
    receipts: new Map(),
    budgetCounts: new WeakMap(),
    outsideRuns: {},
    faultCounts: new Map(),
    randoms: new Map(),
    keyCounters: new Map(),
    pending: [],
    order: 0,
  };
}

/** What the engine's steps share: the world, its clock and hooks, and the state a reset replaces. */
export interface EngineCore {
  readonly definition: WorldDefinition;
  readonly clock: WorldClock;
  readonly hooks: EngineHooks;
  readonly seed: number;
  state: EngineState;
  /** World time of the scheduled item firing now (its clockMs), else undefined. */
  firingAt: number | undefined;
}
