/** Workspace packages: their built-in file tools, their file tree, and the paths criteria read. */
import type { PathSegment } from '../../file-format/json-path';
import { lazyFunction } from '../../lazy';
import { didYouMean } from '../dialect';
import type { Finding } from '../model';
import type { Criterion, OperationDef, PackageDef, WorldFile } from '../types';
import { isWorkspaceOperation, WORKSPACE_OPERATIONS } from '../workspace/operation-ids';
import { relativeSegments } from '../workspace/paths';
import { readTree } from '../workspace/tree';
import type { CheckContext } from './context';

const WORKSPACE_FIELDS = ['description', 'toolNames', 'http'];

// The tools' definitions load only for a world that has a workspace package.
const workspaceOperationDef = lazyFunction(
  (): typeof import('../workspace/operations') => require('../workspace/operations'),
  'workspaceOperationDef',
);

/**
 * A workspace package's operations are the built-in file tools: all of them when it lists
 * none, else the ones it lists (which may add a description, tool names and a route).
 */
export function withWorkspaceOperations(file: WorldFile): { file: WorldFile; findings: Finding[] } {
  const findings: Finding[] = [];
  if (!file.packages.some((p) => p.kind === 'workspace')) return { file, findings };
  const packages = file.packages.map((pkg, i) => {
    if (pkg.kind !== 'workspace') return pkg;
    const listed: OperationDef[] | undefined = (pkg as Partial<PackageDef>).operations;
    const operations = (listed ?? WORKSPACE_OPERATIONS.map((id) => ({ id }))).flatMap((op, j) => {
      const at: PathSegment[] = ['packages', i, 'operations', j];
      if (!isWorkspaceOperation(op.id)) {
        findings.push({
          code: 'WORLD_INVALID',
          segments: [...at, 'id'],
          message: `a workspace package's operations are its built-in file tools; ${JSON.stringify(op.id)} is not one`,
          suggestion: didYouMean(op.id, WORKSPACE_OPERATIONS, 'built-in file tools'),
        });
        return [];
      }
      for (const field of Object.keys(op))
        if (field !== 'id' && !WORKSPACE_FIELDS.includes(field))
          findings.push({
            code: 'WORLD_INVALID',
            segments: [...at, field],
            message: `the ${field} of the built-in ${op.id} is fixed`,
            suggestion: `a workspace operation takes only ${WORKSPACE_FIELDS.map((f) => `"${f}"`).join(', ')} besides its id`,
          });
      return [workspaceOperationDef(op.id, op)];
    });
    return { ...pkg, operations };
  });
  return { file: { ...file, packages }, findings };
}

/** A workspace package's tree (its `from` folder and inline `files`); fields only a workspace has. */
export function checkWorkspacePackage(ctx: CheckContext, pkg: PackageDef, at: PathSegment[]): void {
  if (pkg.kind !== 'workspace') {
    for (const field of ['from', 'files'] as const)
      if (pkg[field] !== undefined)
        ctx.add(
          'WORLD_INVALID',
          [...at, field],
          `"${field}" belongs to a package of kind "workspace"; this one is "${pkg.kind}"`,
          'set "kind": "workspace" to give the package a file tree',
        );
    return;
  }
  if (pkg.state !== undefined)
    ctx.add(
      'WORLD_INVALID',
      [...at, 'state'],
      'a workspace package has no collections: its state is its file tree',
      'declare the files with "from" or "files"',
    );
  const read = readTree(pkg, ctx.dir, at);
  if ('findings' in read) {
    for (const f of read.findings) ctx.add('WORLD_INVALID', f.segments, f.message, f.suggestion);
    return;
  }
  ctx.trees.set(pkg.id, read.tree);
}

/** The workspace package a file criterion reads: the named one, else the world's only one. */
export function workspaceOf(ctx: CheckContext, criterion: Criterion, at: PathSegment[]): void {
  const workspaces = ctx.file.packages.filter((p) => p.kind === 'workspace').map((p) => p.id);
  if (criterion.workspace !== undefined) {
    if (!workspaces.includes(criterion.workspace))
      ctx.add(
        'WORLD_REFERENCE',
        [...at, 'workspace'],
        `${JSON.stringify(criterion.workspace)} is not a workspace package of this world`,
        workspaces.length > 0
          ? didYouMean(criterion.workspace, workspaces, 'workspace packages')
          : 'declare a package of kind "workspace"',
      );
    return;
  }
  if (workspaces.length === 0)
    ctx.add(
      'WORLD_REFERENCE',
      at,
      'a file criterion needs a workspace, and this world has no package of kind "workspace"',
      'declare one with "from" or "files"',
    );
  else if (workspaces.length > 1)
    ctx.add(
      'WORLD_INVALID',
      at,
      `this world has ${workspaces.length} workspace packages (${workspaces.join(', ')}): name the one the criterion reads`,
      `add "workspace": ${JSON.stringify(workspaces[0])}`,
    );
}

export function relativePath(ctx: CheckContext, path: string, at: PathSegment[]): void {
  const segments = relativeSegments(path);
  if (!Array.isArray(segments))
    ctx.add(
      'WORLD_INVALID',
      at,
      `${JSON.stringify(path)} is outside the workspace: it ${segments.problem}`,
      'paths and globs are relative to the workspace folder, e.g. "src/app.ts"',
    );
}
