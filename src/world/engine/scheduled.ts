/** Scheduled events and handlers, fired in time order as the world clock passes them. */
import type { Handler } from '../behaviors';
import { cloneJson } from '../values';
import { defect, isThenable } from './outcomes';
import type { EngineCore, Scheduled } from './state';
import { log, transaction } from './transaction';

/** Fires every scheduled item the world clock has passed, in time order. */
export function settle(core: EngineCore): void {
  if (core.state.pending.length === 0 || core.firingAt !== undefined) return;
  const now = core.clock.now();
  while (core.state.pending.length > 0 && core.state.pending[0].due <= now) {
    const item = core.state.pending.shift()!;
    core.firingAt = item.due;
    try {
      fire(core, item);
    } finally {
      core.firingAt = undefined;
    }
  }
}

function fire(core: EngineCore, item: Scheduled): void {
  const at = item.due;
  if (item.kind === 'event') {
    log(core, item.packageId, item.event, { scheduled: item.source }, at);
    return;
  }
  if (item.kind === 'handler') {
    runScheduled(core, item.packageId, item.handler, undefined, item.source, at);
    return;
  }
  const def = item.def;
  const source = { scheduled: def.id };
  if (def.emit) log(core, def.packageId, cloneJson(def.emit), source, at);
  if (def.apply) {
    const change = def.apply;
    const pkg = { ...(core.state.world[def.packageId] ?? {}) };
    const collection = { ...(pkg[change.collection] ?? {}) };
    if (change.delete) delete collection[change.key];
    else if (change.merge)
      collection[change.key] = {
        ...((collection[change.key] as object | undefined) ?? {}),
        ...cloneJson(change.merge),
      };
    else collection[change.key] = cloneJson(change.set);
    pkg[change.collection] = collection;
    core.state.world[def.packageId] = pkg;
  }
  const handler = def.module !== undefined ? core.definition.eventHandlers.get(def) : undefined;
  if (handler) runScheduled(core, def.packageId, handler, def.input, def.id, at);
}

function runScheduled(
  core: EngineCore,
  packageId: string,
  handler: Handler,
  input: unknown,
  source: string,
  at: number,
): void {
  const outcome = transaction(
    core,
    packageId,
    'deep',
    at,
    (ctx) => {
      const value = handler(ctx);
      if (isThenable(value))
        return defect(core, `the scheduled handler ${source} returned a Promise: handlers are synchronous`);
      return { kind: 'ok', value: null };
    },
    { input: cloneJson(input), actorId: 'world', operationId: '', source: { scheduled: source } },
  );
  if (outcome.kind === 'error') {
    log(
      core,
      packageId,
      { type: 'world.scheduled.failed', code: outcome.error.code, message: outcome.error.message },
      { scheduled: source },
      at,
    );
  }
}
