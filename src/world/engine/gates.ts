/** The checks a call passes before anything of it runs: permissions, input, budgets, its idempotency key. */
import { engineError } from '../errors';
import type { CompiledOperation, WorldDefinition } from '../model';
import { ajvMessages } from '../schema-messages';
import type { BudgetDef, ToolErrorEnvelope } from '../types';
import type { EngineCore } from './state';

export function permissionRefusal(
  definition: WorldDefinition,
  op: CompiledOperation,
  actorId: string,
): ToolErrorEnvelope | undefined {
  const actors = definition.actors;
  if (!actors) return undefined;
  const actor = actors.get(actorId);
  const name = op.key;
  if (!actor)
    return engineError('PERMISSION_DENIED', `actor ${JSON.stringify(actorId)} is not declared in this world`);
  if (!actor.allow.some((m) => m(name)) || actor.deny.some((m) => m(name)))
    return engineError('PERMISSION_DENIED', `actor ${JSON.stringify(actorId)} may not call ${name}`);
  return undefined;
}

export function inputRefusal(op: CompiledOperation, input: unknown): ToolErrorEnvelope | undefined {
  if (op.validateInput(input)) return undefined;
  const problems = ajvMessages(op.validateInput.errors, input);
  return engineError(
    'INVALID_INPUT',
    `the input does not match ${op.key}'s input schema: ${problems.join('; ')}`,
    {
      problems,
    },
  );
}

/** Counts the call against every budget it falls under, or the envelope of the first one it would exceed. */
export function spendBudget(
  core: EngineCore,
  budgets: readonly BudgetDef[],
  op: CompiledOperation,
  actorId: string,
  inRun: object | undefined,
): ToolErrorEnvelope | undefined {
  if (budgets.length === 0) return undefined;
  const run = inRun ?? core.state.outsideRuns;
  const counts = core.state.budgetCounts.get(run) ?? [];
  core.state.budgetCounts.set(run, counts);
  const applicable: number[] = [];
  for (let i = 0; i < budgets.length; i++) {
    const b = budgets[i];
    if (b.operation && b.operation.packageId !== op.packageId) continue;
    if (b.operation?.operationId !== undefined && b.operation.operationId !== op.operationId) continue;
    if (b.actorId !== undefined && b.actorId !== actorId) continue;
    if ((counts[i] ?? 0) >= b.maxCalls) {
      const name = b.id ?? `budgets[${i}]`;
      return engineError(
        'BUDGET_EXCEEDED',
        `budget ${JSON.stringify(name)} allows ${b.maxCalls} call${b.maxCalls === 1 ? '' : 's'} per run; ${op.key} would exceed it`,
        { budget: name, maxCalls: b.maxCalls },
      );
    }
    applicable.push(i);
  }
  for (const i of applicable) counts[i] = (counts[i] ?? 0) + 1;
  return undefined;
}

export function keyFromInput(op: CompiledOperation, input: unknown): string | undefined {
  const field = op.def.idempotency?.keyFrom;
  if (field === undefined || input === null || typeof input !== 'object') return undefined;
  const value = (input as Record<string, unknown>)[field];
  return value === undefined || value === null ? undefined : String(value);
}
