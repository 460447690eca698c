/**
 * A behavior's (or a scheduled handler's) run on a draft of its package's state: committed
 * with its events and scheduled consequences only when the outcome is ok.
 */

import type { Handler } from '../behaviors';
import { type BehaviorContext, BehaviorFailure } from '../behaviors';
import { ENGINE_ERRORS } from '../errors';
import type { CompiledOperation } from '../model';
import type { OperationOutcome, PackageState, WorldEvent, WorldEventPayload } from '../types';
import { cloneJson } from '../values';
import { declared, defect, fail, hint } from './outcomes';
import { random } from './random';
import type { EngineCore, Scheduled } from './state';

export interface Transaction {
  events: WorldEventPayload[];
  scheduled: Array<{ afterMs: number; what: Handler | WorldEventPayload }>;
}

/**
 * Runs `body` on a draft of the package state; commits the draft, its events and its
 * scheduled consequences only if the outcome is ok. A `ctx.fail` with a declared (or
 * engine) code is an error outcome; anything else thrown is a defect.
 */
export function transaction(
  core: EngineCore,
  packageId: string,
  copy: 'shallow' | 'deep',
  clockMs: number,
  body: (ctx: BehaviorContext, tx: Transaction) => OperationOutcome,
  meta: {
    input: unknown;
    actorId: string;
    operationId: string;
    source: WorldEvent['source'];
    op?: CompiledOperation;
  },
): OperationOutcome {
  const live = core.state.world[packageId] ?? {};
  const draft: PackageState = copy === 'deep' ? cloneJson(live) : { ...live };
  const tx: Transaction = { events: [], scheduled: [] };
  const ctx: BehaviorContext = {
    input: meta.input,
    state: draft,
    actorId: meta.actorId,
    packageId,
    operationId: meta.operationId,
    clock: { now: () => clockMs },
    emit: (event) => {
      if (!event || typeof event !== 'object' || typeof event.type !== 'string')
        throw new TypeError('ctx.emit(event): the event needs a string "type"');
      tx.events.push(cloneJson(event));
    },
    schedule: (afterMs, what) => {
      if (!(afterMs >= 0)) throw new TypeError('ctx.schedule(afterMs, what): afterMs must be a number ≥ 0');
      tx.scheduled.push({ afterMs, what });
    },
    fail: (code, message, details) => {
      throw new BehaviorFailure(code, message, details);
    },
    random: () => random(core, `behavior:${packageId}`)(),
  };
  let outcome: OperationOutcome;
  try {
    outcome = body(ctx, tx);
  } catch (error) {
    if (error instanceof BehaviorFailure) {
      const op = meta.op;
      if (op && !op.errors.has(error.code) && !Object.hasOwn(ENGINE_ERRORS, error.code)) {
        return defect(
          core,
          `the behavior of ${op.key} failed with ${JSON.stringify(error.code)}, which the operation does not declare${hint(error.code, op.errors.keys())}`,
        );
      }
      if (op) return fail(declared(op, error.code, error.message, undefined, error.details));
      return fail({
        code: error.code,
        message: error.message ?? error.code,
        retryable: false,
        status: 500,
      });
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return defect(core, `the behavior of ${meta.op?.key ?? packageId} threw ${message}`);
  }
  if (outcome.kind !== 'ok') return outcome;
  // Commit.
  core.state.world[packageId] = draft;
  for (const event of tx.events) log(core, packageId, event, meta.source, clockMs);
  for (const { afterMs, what } of tx.scheduled) {
    const source =
      'operation' in meta.source
        ? `#${meta.source.operation}+${afterMs}ms`
        : `${meta.source.scheduled}+${afterMs}ms`;
    enqueue(
      core,
      typeof what === 'function'
        ? { due: clockMs + afterMs, order: 0, packageId, kind: 'handler', handler: what, source }
        : { due: clockMs + afterMs, order: 0, packageId, kind: 'event', event: cloneJson(what), source },
    );
  }
  return outcome;
}

export function log(
  core: EngineCore,
  packageId: string,
  event: WorldEventPayload,
  source: WorldEvent['source'],
  clockMs: number,
): void {
  core.state.eventLog.push({ seq: ++core.state.eventSeq, clockMs, packageId, source, event });
}

export function enqueue(core: EngineCore, item: Scheduled): void {
  item.order = ++core.state.order;
  let i = core.state.pending.length;
  while (i > 0 && core.state.pending[i - 1].due > item.due) i--;
  core.state.pending.splice(i, 0, item);
}
