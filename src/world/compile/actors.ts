/** Actors and their permissions. */
import type { PathSegment } from '../../file-format/json-path';
import { didYouMean } from '../dialect';
import type { ActorDef } from '../types';
import type { CheckContext } from './context';

/** Actors: unique ids, and permission patterns that cover something. */
export function checkActors(ctx: CheckContext, actors: ActorDef[]): void {
  const seen = new Set<string>();
  actors.forEach((actor, i) => {
    if (seen.has(actor.id))
      ctx.add('WORLD_INVALID', ['actors', i, 'id'], `duplicate actor id ${JSON.stringify(actor.id)}`);
    seen.add(actor.id);
    for (const field of ['allow', 'deny'] as const)
      for (const [j, pattern] of (actor[field] ?? []).entries())
        permission(ctx, pattern, ['actors', i, field, j]);
  });
}

/** `packageId/operationId` with `*` wildcards: a literal package or operation must exist, or the pattern covers nothing. */
function permission(ctx: CheckContext, pattern: string, at: PathSegment[]): void {
  if (pattern === '*') return;
  const slash = pattern.indexOf('/');
  if (slash === -1) {
    if (!pattern.includes('*'))
      ctx.add(
        'WORLD_INVALID',
        at,
        `${JSON.stringify(pattern)} is not a "packageId/operationId" pattern, so it covers nothing`,
        ctx.packages.has(pattern) ? `write "${pattern}/*" for every operation of the package` : undefined,
      );
    return;
  }
  const packageId = pattern.slice(0, slash);
  const operationId = pattern.slice(slash + 1);
  if (packageId.includes('*')) return;
  const pkg = ctx.packages.get(packageId);
  if (!pkg) {
    ctx.add(
      'WORLD_REFERENCE',
      at,
      `unknown package ${JSON.stringify(packageId)} in ${JSON.stringify(pattern)}`,
      didYouMean(packageId, ctx.packages.keys(), 'packages'),
    );
    return;
  }
  if (!operationId.includes('*') && !pkg.ops.has(operationId))
    ctx.add(
      'WORLD_REFERENCE',
      at,
      `package ${JSON.stringify(packageId)} has no operation ${JSON.stringify(operationId)}`,
      didYouMean(operationId, pkg.ops.keys(), `operations of ${packageId}`),
    );
}
