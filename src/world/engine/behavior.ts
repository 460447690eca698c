/** An operation's behavior run: a built-in or a module in a transaction, or a built-in file tool on its folder. */

import { lazyFunction } from '../../lazy';
import { type BehaviorContext, type CompiledBehavior, runBuiltin } from '../behaviors';
import type { CompiledOperation } from '../model';
import { ajvMessages } from '../schema-messages';
import type { OperationOutcome, OperationRecord } from '../types';
import { cloneJson } from '../values';
import type { Workspace } from '../workspace/workspace';
import { declared, defect, fail, isThenable } from './outcomes';
import type { EngineCore } from './state';
import { transaction } from './transaction';

// The file tools' code loads with the first of them a test calls.
const runWorkspaceOperation = lazyFunction(
  (): typeof import('../workspace/operations') => require('../workspace/operations'),
  'runWorkspaceOperation',
);

export function runBehavior(
  core: EngineCore,
  behavior: CompiledBehavior | undefined,
  op: CompiledOperation,
  record: OperationRecord,
  input: unknown,
  actorId: string,
  workspace: (packageId: string) => Workspace,
): OperationOutcome {
  if (behavior?.kind === 'workspace')
    return workspaceCall(core, op, record, input, behavior.operation, workspace);
  const clockMs = record.clockMs;
  return transaction(
    core,
    op.packageId,
    behavior?.kind === 'builtin' ? 'shallow' : 'deep',
    clockMs,
    (ctx, tx) => {
      if (!behavior) return { kind: 'ok', value: null };
      const value =
        behavior.kind === 'builtin'
          ? runBuiltin(behavior.def, ctx as BehaviorContext<Record<string, unknown>>, (prefix) =>
              nextKey(core, op.packageId, behavior.def.collection, prefix),
            )
          : behavior.handler(ctx);
      if (isThenable(value)) {
        return defect(
          core,
          `behavior ${behavior.kind === 'module' ? `${behavior.file} (${behavior.exportName})` : ''} of ${op.key} returned a Promise: handlers are synchronous (schedule later work with ctx.schedule)`,
        );
      }
      if (op.validateOutput && !op.validateOutput(value)) {
        return defect(
          core,
          `the behavior of ${op.key} returned a value its output schema rejects: ${ajvMessages(op.validateOutput.errors, value).join('; ')}`,
          'INVALID_OUTPUT',
        );
      }
      if (tx.events.length > 0) record.events = tx.events.map(cloneJson);
      return { kind: 'ok', value: value === undefined ? null : cloneJson(value) };
    },
    { input, actorId, operationId: op.operationId, source: { operation: record.seq }, op },
  );
}

/** A built-in file tool on the package's folder; what it changed goes into the evidence as diffs. */
function workspaceCall(
  core: EngineCore,
  op: CompiledOperation,
  record: OperationRecord,
  input: unknown,
  operation: Parameters<typeof runWorkspaceOperation>[0],
  workspace: (packageId: string) => Workspace,
): OperationOutcome {
  let result: ReturnType<typeof runWorkspaceOperation>;
  try {
    result = runWorkspaceOperation(operation, workspace(op.packageId), input);
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return defect(core, `the built-in ${operation} of ${op.key} failed on the workspace folder: ${message}`);
  }
  if ('fail' in result) return fail(declared(op, result.fail.code, result.fail.message));
  if (result.changes && result.changes.length > 0) record.files = result.changes;
  return { kind: 'ok', value: result.value };
}

/** The next free generated key of a collection (`prefix1`, `prefix2`…). */
function nextKey(core: EngineCore, packageId: string, collection: string, prefix: string): string {
  const key = `${packageId}\u0000${collection}\u0000${prefix}`;
  let n = core.state.keyCounters.get(key) ?? 0;
  let candidate: string;
  const existing = core.state.world[packageId]?.[collection] ?? {};
  do candidate = `${prefix}${++n}`;
  while (Object.hasOwn(existing, candidate));
  core.state.keyCounters.set(key, n);
  return candidate;
}
