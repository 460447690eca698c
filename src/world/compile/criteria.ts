/** Drills' success criteria. */
import type { PathSegment } from '../../file-format/json-path';
import { didYouMean } from '../dialect';
import { ENGINE_ERRORS } from '../errors';
import { type CompiledOperation, opKey } from '../model';
import type { Criterion, OperationFilter } from '../types';
import { parseStatePath } from '../values';
import type { CheckContext } from './context';
import { relativePath, workspaceOf } from './workspace';

/** A drill's success criterion: one kind, one check, references that exist. */
export function checkCriterion(ctx: CheckContext, criterion: Criterion, at: PathSegment[]): void {
  const kinds = (
    [
      'state',
      'called',
      'notCalled',
      'noErrors',
      'noDuplicateEffects',
      'file',
      'fileUnchanged',
      'noChangesOutside',
    ] as const
  ).filter((k) => criterion[k] !== undefined);
  if (kinds.length > 1) {
    ctx.add(
      'WORLD_INVALID',
      at,
      `a criterion checks one thing; this one has ${kinds.map((k) => `"${k}"`).join(' and ')}`,
      'split it into one criterion each',
    );
    return;
  }
  const checks = (['equals', 'contains', 'exists', 'matches'] as const).filter((k) =>
    Object.hasOwn(criterion, k),
  );
  if (criterion.state !== undefined) {
    const parsed = parseStatePath(criterion.state);
    if ('error' in parsed) ctx.add('WORLD_INVALID', [...at, 'state'], `not a state path: ${parsed.error}`);
    else if (parsed.length > 0 && typeof parsed[0] === 'string') ctx.packageId(parsed[0], [...at, 'state']);
    if (checks.includes('matches'))
      ctx.add('WORLD_INVALID', [...at, 'matches'], '"matches" belongs to a "file" criterion');
    else if (checks.length !== 1)
      ctx.add(
        'WORLD_INVALID',
        at,
        checks.length === 0
          ? 'a state criterion says nothing about the value'
          : `a state criterion has one check; this one has ${checks.join(' and ')}`,
        'give it one of "equals", "contains" or "exists"',
      );
  } else if (criterion.file !== undefined) {
    fileCriterion(ctx, criterion, checks, at);
  } else if (checks.length > 0) {
    ctx.add('WORLD_INVALID', [...at, checks[0]], `"${checks[0]}" belongs to a "state" or "file" criterion`);
  }
  if (criterion.fileUnchanged !== undefined) {
    workspaceOf(ctx, criterion, at);
    relativePath(ctx, criterion.fileUnchanged, [...at, 'fileUnchanged']);
  }
  if (criterion.noChangesOutside !== undefined) {
    workspaceOf(ctx, criterion, at);
    for (const [i, glob] of criterion.noChangesOutside.entries())
      relativePath(ctx, glob, [...at, 'noChangesOutside', i]);
  }
  if (
    criterion.workspace !== undefined &&
    !kinds.some((k) => k.startsWith('file') || k === 'noChangesOutside')
  )
    ctx.add(
      'WORLD_INVALID',
      [...at, 'workspace'],
      '"workspace" belongs to a "file", "fileUnchanged" or "noChangesOutside" criterion',
    );
  if (criterion.times !== undefined && criterion.called === undefined)
    ctx.add('WORLD_INVALID', [...at, 'times'], '"times" belongs to a "called" criterion');
  if (criterion.called) checkFilter(ctx, criterion.called, [...at, 'called']);
  if (criterion.notCalled) checkFilter(ctx, criterion.notCalled, [...at, 'notCalled']);
  const effect = criterion.noDuplicateEffects;
  if (effect?.packageId !== undefined)
    ctx.operation({ packageId: effect.packageId, operationId: effect.operationId }, [
      ...at,
      'noDuplicateEffects',
    ]);
  else if (effect && ![...ctx.packages.values()].some((p) => p.ops.has(effect.operationId)))
    ctx.add(
      'WORLD_REFERENCE',
      [...at, 'noDuplicateEffects', 'operationId'],
      `no package has an operation ${JSON.stringify(effect.operationId)}`,
      didYouMean(
        effect.operationId,
        [...ctx.packages.values()].flatMap((p) => [...p.ops.keys()]),
        'operations',
      ),
    );
  // Codes in noErrors.except may be anything: listing a code that never happens is harmless.
}

function fileCriterion(ctx: CheckContext, criterion: Criterion, checks: string[], at: PathSegment[]): void {
  workspaceOf(ctx, criterion, at);
  relativePath(ctx, criterion.file!, [...at, 'file']);
  if (checks.length !== 1) {
    ctx.add(
      'WORLD_INVALID',
      at,
      checks.length === 0
        ? 'a file criterion says nothing about the file'
        : `a file criterion has one check; this one has ${checks.join(' and ')}`,
      'give it one of "equals", "contains", "matches" or "exists"',
    );
    return;
  }
  const [check] = checks;
  const value = criterion[check as 'equals' | 'contains' | 'matches'];
  if (check !== 'exists' && typeof value !== 'string')
    ctx.add('WORLD_INVALID', [...at, check], `a file criterion's "${check}" is a string (the file's text)`);
  else if (check === 'matches') {
    try {
      new RegExp(value as string);
    } catch (error) {
      ctx.add('WORLD_INVALID', [...at, 'matches'], `not a regular expression: ${(error as Error).message}`);
    }
  }
}

/** A `called` / `notCalled` filter: known package, operation and actor, a code that can happen. */
function checkFilter(ctx: CheckContext, filter: OperationFilter, at: PathSegment[]): void {
  const pkg = ctx.packageId(filter.packageId, [...at, 'packageId']);
  if (!pkg) return;
  let op: CompiledOperation | undefined;
  if (filter.operationId !== undefined) {
    if (ctx.operationId(pkg, filter.operationId, [...at, 'operationId']))
      op = ctx.compiled.get(opKey(filter.packageId, filter.operationId));
  }
  if (filter.actorId !== undefined) ctx.actorId(filter.actorId, [...at, 'actorId']);
  if (filter.code !== undefined && !Object.hasOwn(ENGINE_ERRORS, filter.code)) {
    const declared = op
      ? [...op.errors.keys()]
      : [...pkg.ops.values()].flatMap((o) => (o.errors ?? []).map((e) => e.code));
    if (!declared.includes(filter.code))
      ctx.add(
        'WORLD_REFERENCE',
        [...at, 'code'],
        `no error ${JSON.stringify(filter.code)} is declared by ${op ? op.key : `the operations of ${filter.packageId}`}`,
        didYouMean(filter.code, [...declared, ...Object.keys(ENGINE_ERRORS)], 'error codes'),
      );
  }
}
