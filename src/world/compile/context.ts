/**
 * What every feature checker shares while one world (or one per-test setup) is checked: the
 * findings so far, the packages and operations by id, what has been compiled, the modules
 * waiting to load, and the reference checks (a package, operation, actor, scenario or
 * collection that must exist) that add a finding with a suggestion when it does not.
 */
import type { PathSegment } from '../../file-format/json-path';
import type { Handler } from '../behaviors';
import { didYouMean } from '../dialect';
import type { WorldIssueCode } from '../errors';
import type { CompiledOperation, Finding, WorldDefinition } from '../model';
import type {
  JsonSchemaObject,
  OperationDef,
  OperationRef,
  PackageDef,
  ScheduledEventDef,
  WorldFile,
} from '../types';
import type { FileTree } from '../workspace/tree';

export interface CheckedPackage {
  def: PackageDef;
  ops: Map<string, OperationDef>;
  at: number;
}

/** A module to load once everything else is fine: where, path, which exports. */
export interface PendingModule {
  at: PathSegment[];
  file: string;
  candidates: string[];
  done: (handler: Handler, exportName: string) => void;
}

export class CheckContext {
  readonly findings: Finding[] = [];
  readonly packages = new Map<string, CheckedPackage>();
  readonly compiled = new Map<string, CompiledOperation>();
  readonly pendingModules: PendingModule[] = [];
  readonly moduleFiles = new Set<string>();
  readonly eventHandlers: WeakMap<ScheduledEventDef, Handler>;
  readonly trees = new Map<string, FileTree>();
  private readonly actorIds: Set<string> | undefined;
  private readonly collections = new Map<string, Set<string>>();

  constructor(
    readonly file: WorldFile,
    readonly dir: string,
    existing?: WorldDefinition,
  ) {
    this.actorIds = file.actors ? new Set(file.actors.map((a) => a.id)) : undefined;
    this.eventHandlers = existing?.eventHandlers ?? new WeakMap();
    file.packages.forEach((def, i) => {
      if (!this.packages.has(def.id)) this.packages.set(def.id, { def, ops: new Map(), at: i });
      const pkg = this.packages.get(def.id)!;
      if (pkg.def === def) for (const op of def.operations) if (!pkg.ops.has(op.id)) pkg.ops.set(op.id, op);
    });
    if (existing) for (const [key, op] of existing.operations) this.compiled.set(key, op);
    if (existing) for (const [id, pkg] of existing.packages) if (pkg.tree) this.trees.set(id, pkg.tree);
  }

  add(code: WorldIssueCode, segments: PathSegment[], message: string, suggestion?: string): void {
    this.findings.push({ code, segments, message, ...(suggestion && { suggestion }) });
  }

  packageId(id: string, at: PathSegment[]): CheckedPackage | undefined {
    const pkg = this.packages.get(id);
    if (!pkg)
      this.add(
        'WORLD_REFERENCE',
        at,
        `unknown package ${JSON.stringify(id)}`,
        didYouMean(id, this.packages.keys(), 'packages'),
      );
    return pkg;
  }

  operationId(pkg: CheckedPackage, id: string, at: PathSegment[]): OperationDef | undefined {
    const op = pkg.ops.get(id);
    if (!op)
      this.add(
        'WORLD_REFERENCE',
        at,
        `package ${JSON.stringify(pkg.def.id)} has no operation ${JSON.stringify(id)}`,
        didYouMean(id, pkg.ops.keys(), `operations of ${pkg.def.id}`),
      );
    return op;
  }

  operation(
    ref: OperationRef,
    at: PathSegment[],
  ): { packageId: string; operationId: string; def: OperationDef } | undefined {
    const pkg = this.packageId(ref.packageId, [...at, 'packageId']);
    if (!pkg) return undefined;
    const def = this.operationId(pkg, ref.operationId, [...at, 'operationId']);
    return def && { packageId: ref.packageId, operationId: ref.operationId, def };
  }

  actorId(id: string, at: PathSegment[]): void {
    if (this.actorIds && !this.actorIds.has(id))
      this.add(
        'WORLD_REFERENCE',
        at,
        `unknown actor ${JSON.stringify(id)}`,
        didYouMean(id, this.actorIds, 'actors'),
      );
  }

  scenarioName(name: string, at: PathSegment[]): void {
    if (!Object.hasOwn(this.file.scenarios ?? {}, name))
      this.add(
        'WORLD_REFERENCE',
        at,
        `unknown scenario ${JSON.stringify(name)}`,
        didYouMean(name, Object.keys(this.file.scenarios ?? {}), 'scenarios'),
      );
  }

  collection(packageId: string, name: string, at: PathSegment[]): boolean {
    const known = this.collectionsOf(packageId);
    if (known.has(name)) return true;
    this.add(
      'WORLD_REFERENCE',
      at,
      `package ${JSON.stringify(packageId)} has no collection ${JSON.stringify(name)}`,
      known.size > 0
        ? didYouMean(name, known, `collections of ${packageId}`)
        : `declare it in the package's "state", e.g. "state": { "${name}": {} }`,
    );
    return false;
  }

  /**
   * The collections a package has: those its state declares (its own, or a scenario's), or,
   * when it declares none, those its create / upsert built-ins write.
   */
  private collectionsOf(packageId: string): Set<string> {
    let known = this.collections.get(packageId);
    if (known) return known;
    known = new Set(Object.keys(this.packages.get(packageId)?.def.state ?? {}));
    for (const scenario of Object.values(this.file.scenarios ?? {}))
      for (const name of Object.keys(scenario.state?.[packageId] ?? {})) known.add(name);
    if (known.size === 0) {
      for (const op of this.packages.get(packageId)?.ops.values() ?? []) {
        const def = typeof op.behavior === 'string' ? this.file.behaviors?.[op.behavior] : op.behavior;
        if (def?.collection !== undefined && (def.builtin === 'create' || def.builtin === 'upsert'))
          known.add(def.collection);
      }
    }
    this.collections.set(packageId, known);
    return known;
  }

  /** A schema's top-level properties (following one `#/definitions/` reference), when it lists them. */
  propertiesOf(schema: JsonSchemaObject | undefined): Record<string, JsonSchemaObject> | undefined {
    if (!schema || typeof schema !== 'object') return undefined;
    let s = schema as { $ref?: string; properties?: Record<string, JsonSchemaObject> };
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/definitions/')) {
      s = (this.file.definitions?.[s.$ref.slice('#/definitions/'.length)] ?? {}) as typeof s;
    }
    return s.properties && typeof s.properties === 'object' ? s.properties : undefined;
  }
}
