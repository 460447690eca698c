/**
 * What runs on the normal path of an operation: a built-in on a keyed collection of its
 * package (get / list / create / upsert / delete), or a handler from a behavior module.
 * Handlers are synchronous `(ctx) => output`: they read and change `ctx.state` (a draft
 * of their package's state, committed only when they return), emit events, schedule
 * consequences on the world clock and fail with a declared error through `ctx.fail`.
 */
import type { BehaviorDef, BuiltinName, PackageState, WorldEventPayload } from './types';
import { cloneJson, deepEqual } from './values';
import type { WorkspaceOperation } from './workspace/operations';

export interface BehaviorContext<Input = any, State extends PackageState = any> {
  /** The validated input. */
  readonly input: Input;
  /** A draft of this package's state (`collection → key → record`); committed when the handler returns. */
  readonly state: State;
  readonly actorId: string;
  readonly packageId: string;
  readonly operationId: string;
  /** The world clock (ms since the world started). */
  readonly clock: { now(): number };
  /** Adds an event to the world's event log (kept only if the handler succeeds). */
  emit(event: WorldEventPayload): void;
  /**
   * Runs `what` when the world clock passes now + `afterMs`: a handler (same context,
   * `input` undefined) in its own transaction, or an event to emit.
   */
  schedule(afterMs: number, what: ((ctx: BehaviorContext) => void) | WorldEventPayload): void;
  /** Fails the operation with a code it declares; its state changes are rolled back. */
  fail(code: string, message?: string, details?: unknown): never;
  /** Seeded: the same build and seed draw the same numbers. */
  random(): number;
}

/** A behavior module's handler: synchronous, it reads and changes `ctx.state`. */
export type Handler = (ctx: BehaviorContext) => unknown;

/** Thrown by `ctx.fail`; the engine turns it into the declared error. */
export class BehaviorFailure {
  constructor(
    readonly code: string,
    readonly message: string | undefined,
    readonly details: unknown,
  ) {}
}

export type BuiltinDef = BehaviorDef & { builtin: BuiltinName; collection: string };

export type CompiledBehavior =
  | { kind: 'builtin'; def: BuiltinDef }
  | { kind: 'module'; handler: Handler; file: string; exportName: string }
  /** A file tool of a workspace package (src/world/workspace/operations.ts). */
  | { kind: 'workspace'; operation: WorkspaceOperation };

/** The codes a built-in fails with (each must be declared by its operation). */
export function builtinCodes(def: BehaviorDef): string[] {
  if (def.builtin === 'get' || def.builtin === 'delete') return [def.notFound ?? 'NOT_FOUND'];
  if (def.builtin === 'create') return [def.conflict ?? 'CONFLICT'];
  return [];
}

const has = (collection: Record<string, unknown> | undefined, key: string) =>
  collection !== undefined && Object.hasOwn(collection, key);

/**
 * Runs a built-in on `ctx.state`, a shallow copy of the package state: a write replaces
 * the collection with a copy (records are never changed in place), so the live state is
 * untouched until the engine commits the copy. Records are returned as they are stored
 * (never changed in place afterwards); the engine copies the output for the evidence and
 * for the caller.
 */
export function runBuiltin(
  def: BuiltinDef,
  ctx: BehaviorContext<Record<string, unknown>>,
  nextKey: (prefix: string) => string,
): unknown {
  const input = (ctx.input ?? {}) as Record<string, unknown>;
  const keyField = def.key ?? 'id';
  const state = ctx.state as PackageState;
  const collection = state[def.collection];
  const raw = input[keyField];
  const key = raw === undefined || raw === null ? undefined : String(raw);
  const write = (k: string, record: Record<string, unknown>) => {
    state[def.collection] = { ...state[def.collection], [k]: record };
    if (def.emits) ctx.emit({ type: def.emits, key: k, record });
  };
  const missing = (): never =>
    ctx.fail(def.notFound ?? 'NOT_FOUND', `${def.collection} ${JSON.stringify(key)} does not exist`);
  const needKey = (): string =>
    key ??
    ctx.fail('INVALID_INPUT', `the input has no ${JSON.stringify(keyField)} to key ${def.collection} by`);

  switch (def.builtin) {
    case 'get': {
      const k = needKey();
      if (!has(collection, k)) return missing();
      return collection[k];
    }
    case 'list': {
      const filter = def.filter ?? [];
      const items = Object.values(collection ?? {}).filter((record) =>
        filter.every(
          (field) =>
            input[field] === undefined ||
            deepEqual((record as Record<string, unknown>)?.[field], input[field]),
        ),
      );
      return def.wrap ? { [def.wrap]: items } : items;
    }
    case 'create': {
      const k = key ?? (def.generate !== undefined ? nextKey(def.generate) : needKey());
      if (has(collection, k)) {
        return ctx.fail(def.conflict ?? 'CONFLICT', `${def.collection} ${JSON.stringify(k)} already exists`);
      }
      const record = { ...cloneJson(input), [keyField]: raw ?? k, ...cloneJson(def.set ?? {}) };
      write(k, record);
      return record;
    }
    case 'upsert': {
      const k = needKey();
      const base = def.merge && has(collection, k) ? (collection[k] as Record<string, unknown>) : {};
      const record = { ...base, ...cloneJson(input), ...cloneJson(def.set ?? {}) };
      write(k, record);
      return record;
    }
    case 'delete': {
      const k = needKey();
      if (!has(collection, k)) return missing();
      const record = collection[k];
      const rest = { ...collection };
      delete rest[k];
      state[def.collection] = rest;
      if (def.emits) ctx.emit({ type: def.emits, key: k, record });
      return record;
    }
  }
}
