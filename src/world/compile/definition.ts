/** A checked world as the definition the engine runs: compiled packages, actors, its hash. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type CompiledOperation, type CompiledPackage, opKey, type WorldDefinition } from '../model';
import { patternMatcher } from '../values';
import type { FileTree } from '../workspace/tree';
import { checkBehavior } from './behavior';
import { CheckContext } from './context';
import { loadModules } from './load-modules';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort())
      out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

export function hashOf(data: unknown, moduleFiles: Iterable<string>): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(canonical(data)));
  for (const file of [...new Set(moduleFiles)].sort()) {
    hash.update(`\u0000${file}\u0000`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('<unreadable>');
    }
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Each workspace tree as `path → sha256`, so a changed fixture file changes the world's hash. */
function treeDigests(trees: ReadonlyMap<string, FileTree>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [id, tree] of trees) {
    out[id] = {};
    for (const [path, { mode, content }] of tree) {
      const hash = createHash('sha256').update(content).digest('hex');
      out[id][path] = mode === 'file' ? hash : `${mode}:${hash}`;
    }
  }
  return out;
}

/** The definition of a world whose checks found nothing and whose modules are loaded. */
export function definitionOf(ctx: CheckContext, file: string | undefined): WorldDefinition {
  const source = ctx.file;
  const packages = new Map<string, CompiledPackage>();
  for (const [id, pkg] of ctx.packages) {
    const operations = new Map<string, CompiledOperation>();
    for (const opId of pkg.ops.keys()) operations.set(opId, ctx.compiled.get(opKey(id, opId))!);
    const tree = ctx.trees.get(id);
    packages.set(id, { def: pkg.def, operations, ...(tree && { tree }) });
  }
  const actors = source.actors
    ? new Map(
        source.actors.map((a) => [
          a.id,
          { allow: (a.allow ?? []).map(patternMatcher), deny: (a.deny ?? []).map(patternMatcher) },
        ]),
      )
    : undefined;
  const dir = ctx.dir;
  const definition: WorldDefinition = {
    file,
    dir,
    name: source.name ?? 'world',
    hash: hashOf(
      ctx.trees.size > 0 ? { source, workspaces: treeDigests(ctx.trees) } : source,
      ctx.moduleFiles,
    ),
    seed: source.seed ?? 1,
    source,
    packages,
    operations: new Map(ctx.compiled),
    actors,
    defaultActor: source.defaultActor ?? source.actors?.[0]?.id ?? 'agent',
    idempotencyHeader: source.idempotency?.header ?? 'Idempotency-Key',
    eventHandlers: ctx.eventHandlers,
    compileBehavior(spec, operation, at) {
      const swap = new CheckContext(source, dir, definition);
      // A copy, so a failed swap leaves the world's own operation untouched.
      const target: CompiledOperation = { ...operation, behavior: undefined };
      const result = checkBehavior(swap, spec, target, at);
      if ('failed' in result) return { findings: swap.findings };
      if ('behavior' in result) return { behavior: result.behavior };
      loadModules(swap);
      if (swap.findings.length > 0) return { findings: swap.findings };
      return { behavior: target.behavior! };
    },
  };
  return definition;
}
