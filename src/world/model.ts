/**
 * The compiled world: what the compiler builds from a world file and what the engine, the
 * rules, the transports and the host run. Types and `opKey` only, so none of them imports
 * the compiler.
 */
import type { ValidateFunction } from 'ajv';
import type { PathSegment } from '../file-format/json-path';
import type { CompiledBehavior, Handler } from './behaviors';
import type { WorldIssueCode } from './errors';
import type {
  BehaviorDef,
  BindingKind,
  DeclaredError,
  JsonSchemaObject,
  OperationDef,
  PackageDef,
  ScheduledEventDef,
  WorldFile,
} from './types';
import type { FileTree } from './workspace/tree';

export interface Finding {
  code: WorldIssueCode;
  segments: PathSegment[];
  message: string;
  suggestion?: string;
}

export interface CompiledRoute {
  method: string;
  path: string;
  status?: number;
  regex: RegExp;
  params: string[];
}

export interface CompiledOperation {
  key: string;
  packageId: string;
  operationId: string;
  def: OperationDef;
  bindings: ReadonlySet<BindingKind>;
  errors: ReadonlyMap<string, DeclaredError>;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction | undefined;
  /** The input schema's top-level properties, when it lists them. */
  inputProperties: Record<string, JsonSchemaObject> | undefined;
  behavior: CompiledBehavior | undefined;
  toolNames: readonly string[];
  route: CompiledRoute | undefined;
}

export interface CompiledPackage {
  def: PackageDef;
  operations: ReadonlyMap<string, CompiledOperation>;
  /** kind workspace: the initial file tree, copied into each test's workspace folder. */
  tree?: FileTree;
}

export interface CompiledActor {
  allow: Array<(name: string) => boolean>;
  deny: Array<(name: string) => boolean>;
}

export interface WorldDefinition {
  /** Absolute path of the world file (absent for worlds compiled from data). */
  file: string | undefined;
  /** Behavior module paths are relative to this folder. */
  dir: string;
  name: string;
  /** sha256 of the world data and every behavior module's source: identifies it in builds. */
  hash: string;
  seed: number;
  source: WorldFile;
  packages: ReadonlyMap<string, CompiledPackage>;
  /** By `packageId/operationId`. */
  operations: ReadonlyMap<string, CompiledOperation>;
  /** Undefined: the world declares no actors, so permissions are off. */
  actors: ReadonlyMap<string, CompiledActor> | undefined;
  defaultActor: string;
  idempotencyHeader: string;
  /** Handlers of scheduled events that name a module. */
  eventHandlers: WeakMap<ScheduledEventDef, Handler>;
  /** Compiles a behavior for an operation (behaviorOverrides at drill time). */
  compileBehavior(
    spec: BehaviorDef | string,
    operation: CompiledOperation,
    at: PathSegment[],
  ): { behavior: CompiledBehavior } | { findings: Finding[] };
}

export const opKey = (packageId: string, operationId: string) => `${packageId}/${operationId}`;
