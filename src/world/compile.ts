/**
 * A schema-valid world file → a WorldDefinition the engine runs, or every problem in it.
 * All or nothing: references are checked (an override naming an unknown operation, an
 * error code the operation does not declare, a drill naming an unknown scenario, a
 * behavior module that does not exist…), operation schemas compiled, static override
 * values validated, and only then are behavior modules loaded. Per-test setups
 * (`runDrills({ setup })`) go through the same checks.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { formatPath, type PathSegment, pointerToSegments } from '../file-format/json-path';
import { PROVIDERS } from '../providers/registry';
import { type BuiltinDef, builtinCodes, type CompiledBehavior, type Handler } from './behaviors';
import { closest, didYouMean } from './dialect';
import { ENGINE_ERRORS, type WorldIssueCode } from './errors';
import { inputProblem, mcpToolName, TOOL_NAME } from './mcp/schema';
import { handlerOf, requireModule, resolveModule } from './modules';
import { operationValidator } from './operation-schema';
import type {
  ActorDef,
  BehaviorDef,
  BindingKind,
  Criterion,
  DeclaredError,
  FaultDef,
  JsonSchemaObject,
  OperationDef,
  OperationFilter,
  OperationRef,
  PackageDef,
  RuleWhen,
  ScenarioDef,
  ScheduledEventDef,
  ToolOverride,
  WorldFile,
} from './types';
import { parseStatePath, patternMatcher } from './values';
import { isWorkspaceOperation, WORKSPACE_OPERATIONS, workspaceOperationDef } from './workspace/operations';
import { relativeSegments } from './workspace/paths';
import { type FileTree, readTree } from './workspace/tree';

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

/** The provider whose API host `baseURL` names (the mock model serves those hosts). */
function providerAt(baseURL: string): string | undefined {
  const host = URL.canParse(baseURL) ? new URL(baseURL).host : undefined;
  const names: Record<string, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' };
  for (const provider of PROVIDERS)
    if (provider.defaultBaseURLs.some((url) => new URL(url).host === host)) return names[provider.id];
  return undefined;
}

/** What is wrong with a route's path template (`/records/{id}`, `/models/{model}:run`), if anything. */
function pathTemplateProblem(path: string): string | undefined {
  const seen = new Set<string>();
  for (const segment of path.split('/')) {
    for (const [, name] of segment.matchAll(/\{([^{}]*)\}/g)) {
      if (!/^[A-Za-z_$][\w$-]*$/.test(name)) return `{${name}} is not a parameter name`;
      if (seen.has(name)) return `the parameter {${name}} appears twice`;
      seen.add(name);
    }
    const rest = segment.replace(/\{[^{}]*\}/g, '');
    if (rest.includes('{')) return `"{" without a closing "}" in ${JSON.stringify(segment)}`;
    if (rest.includes('}')) return `"}" without an opening "{" in ${JSON.stringify(segment)}`;
  }
  return undefined;
}

/** Validation messages of ajv, as "$.id must be string". */
export function ajvMessages(errors: readonly ErrorObject[] | null | undefined, data: unknown): string[] {
  return (errors ?? []).map((error) => {
    const path = formatPath(pointerToSegments(error.instancePath, data));
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${JSON.stringify(error.params.additionalProperty)})`
        : error.keyword === 'enum'
          ? ` (${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`
          : '';
    return `${path} ${error.message}${extra}`;
  });
}

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

const WORKSPACE_FIELDS = ['description', 'toolNames', 'http'];

/**
 * A workspace package's operations are the built-in file tools: all of them when it lists
 * none, else the ones it lists (which may add a description, tool names and a route).
 */
function withWorkspaceOperations(file: WorldFile): { file: WorldFile; findings: Finding[] } {
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

/** Checks and compiles. Returns findings (nothing is half-built) or the definition. */
export function compileWorld(
  given: WorldFile,
  options: { file?: string; dir: string },
): { definition: WorldDefinition } | { findings: Finding[] } {
  const { file, findings } = withWorkspaceOperations(given);
  const checker = new Checker(file, options.dir);
  checker.findings.push(...findings);
  checker.checkAll();
  if (checker.findings.length > 0) return { findings: checker.findings };
  checker.loadModules();
  if (checker.findings.length > 0) return { findings: checker.findings };
  return { definition: checker.definition(options.file) };
}

/**
 * Every problem of a schema-valid world, without loading its behavior modules: module paths
 * are resolved but nothing of the user's runs (`understudy validate`).
 */
export function checkWorld(given: WorldFile, options: { dir: string }): Finding[] {
  const { file, findings } = withWorkspaceOperations(given);
  const checker = new Checker(file, options.dir);
  checker.findings.push(...findings);
  checker.checkAll();
  return checker.findings;
}

/** What a per-test setup may reference; checked against a compiled world. */
export interface SetupShape {
  scenario?: string | ScenarioDef;
  toolOverrides?: ToolOverride[];
  tools?: { behaviorOverrides?: Array<{ operation: OperationRef; behavior: BehaviorDef | string }> };
}

export function checkSetup(definition: WorldDefinition, setup: SetupShape): Finding[] {
  const checker = new Checker(definition.source, definition.dir, definition);
  if (typeof setup.scenario === 'string') {
    checker.scenarioName(setup.scenario, ['scenario']);
  } else if (setup.scenario) {
    checker.scenario(setup.scenario, ['scenario']);
  }
  checker.rules(setup.toolOverrides ?? [], ['toolOverrides']);
  (setup.tools?.behaviorOverrides ?? []).forEach((entry, i) => {
    const at: PathSegment[] = ['tools', 'behaviorOverrides', i];
    const op = checker.operation(entry.operation, [...at, 'operation']);
    if (!op) return;
    const compiled = definition.operations.get(opKey(op.packageId, op.operationId));
    if (!compiled) return;
    const result = definition.compileBehavior(entry.behavior, compiled, [...at, 'behavior']);
    if ('findings' in result) checker.findings.push(...result.findings);
  });
  if (checker.findings.length === 0) checker.loadModules();
  return checker.findings;
}

const compileSchema = operationValidator;

class Checker {
  readonly findings: Finding[] = [];
  private readonly packages = new Map<
    string,
    { def: PackageDef; ops: Map<string, OperationDef>; at: number }
  >();
  private readonly compiled = new Map<string, CompiledOperation>();
  private readonly actorIds: Set<string> | undefined;
  /** Modules to load once everything else is fine: where, path, which exports. */
  private readonly pendingModules: Array<{
    at: PathSegment[];
    file: string;
    candidates: string[];
    done: (handler: Handler, exportName: string) => void;
  }> = [];
  private readonly moduleFiles = new Set<string>();
  private readonly eventHandlers: WeakMap<ScheduledEventDef, Handler>;
  private readonly collections = new Map<string, Set<string>>();
  private readonly trees = new Map<string, FileTree>();

  constructor(
    private readonly file: WorldFile,
    private readonly dir: string,
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

  private add(code: WorldIssueCode, segments: PathSegment[], message: string, suggestion?: string) {
    this.findings.push({ code, segments, message, ...(suggestion && { suggestion }) });
  }

  checkAll(): void {
    const f = this.file;
    this.packagesAndOperations();
    // Without actors, permissions are off and any actor id is accepted.
    if (f.actors) this.actors(f.actors);
    f.budgets?.forEach((budget, i) => {
      const at: PathSegment[] = ['budgets', i];
      if (budget.operation) {
        const pkg = this.packageId(budget.operation.packageId, [...at, 'operation', 'packageId']);
        if (pkg && budget.operation.operationId !== undefined)
          this.operationId(pkg, budget.operation.operationId, [...at, 'operation', 'operationId']);
      }
      if (budget.actorId !== undefined) this.actorId(budget.actorId, [...at, 'actorId']);
    });
    for (const [name, def] of Object.entries(f.behaviors ?? {})) {
      if (def.module !== undefined) this.modulePath(def.module, ['behaviors', name, 'module']);
    }
    this.rules(f.toolOverrides ?? [], ['toolOverrides']);
    this.faults(f.faults ?? [], ['faults']);
    this.events(f.events ?? [], ['events']);
    for (const [name, scenario] of Object.entries(f.scenarios ?? {}))
      this.scenario(scenario, ['scenarios', name]);
    for (const [name, drill] of Object.entries(f.drills ?? {})) {
      const at: PathSegment[] = ['drills', name];
      if (drill.scenario !== undefined) this.scenarioName(drill.scenario, [...at, 'scenario']);
      if (drill.actor !== undefined) this.actorId(drill.actor, [...at, 'actor']);
      this.rules(drill.toolOverrides ?? [], [...at, 'toolOverrides']);
      for (const [i, criterion] of drill.success.entries()) this.criterion(criterion, [...at, 'success', i]);
      if (drill.crash?.afterOperation && drill.crash.atStep !== undefined)
        this.add(
          'WORLD_INVALID',
          [...at, 'crash'],
          'a crash comes at one point: give afterOperation or atStep, not both',
        );
      else if (drill.crash?.afterOperation)
        this.operation(drill.crash.afterOperation, [...at, 'crash', 'afterOperation']);
    }
  }

  private packagesAndOperations(): void {
    const seenTools = new Map<string, string>();
    const mcpUrls = new Map<string, string>();
    this.file.packages.forEach((pkg, i) => {
      const at: PathSegment[] = ['packages', i];
      if (this.packages.get(pkg.id)?.def !== pkg) {
        this.add(
          'WORLD_INVALID',
          [...at, 'id'],
          `duplicate package id ${JSON.stringify(pkg.id)}`,
          'package ids are unique',
        );
        return;
      }
      const http = pkg.bindings.includes('http');
      if (http && pkg.http && !/^https?:\/\/[^/]/.test(pkg.http.baseURL)) {
        this.add(
          'WORLD_INVALID',
          [...at, 'http', 'baseURL'],
          `not an absolute http(s) URL: ${JSON.stringify(pkg.http.baseURL)}`,
          'e.g. "https://records.example.test/v1"',
        );
      } else if (http && pkg.http) {
        const provider = providerAt(pkg.http.baseURL);
        if (provider)
          this.add(
            'WORLD_INVALID',
            [...at, 'http', 'baseURL'],
            `${new URL(pkg.http.baseURL).host} is the ${provider} API: the mock model answers every request to it, so this package would never be served`,
            'give the package a host of its own, e.g. "https://records.example.test/v1"',
          );
      }
      this.mcpPackage(pkg, at, mcpUrls);
      this.workspacePackage(pkg, at);
      const seenOps = new Set<string>();
      const routes = new Map<string, number>();
      pkg.operations.forEach((op, j) => {
        const opAt: PathSegment[] = [...at, 'operations', j];
        if (seenOps.has(op.id)) {
          this.add(
            'WORLD_INVALID',
            [...opAt, 'id'],
            `duplicate operation id ${JSON.stringify(op.id)} in package ${JSON.stringify(pkg.id)}`,
          );
          return;
        }
        seenOps.add(op.id);
        this.operationDef(pkg, op, opAt, http, routes, j, seenTools);
      });
    });
    if (this.file.defaultActor !== undefined) this.actorId(this.file.defaultActor, ['defaultActor']);
  }

  /** A workspace package's tree (its `from` folder and inline `files`); fields only a workspace has. */
  private workspacePackage(pkg: PackageDef, at: PathSegment[]): void {
    if (pkg.kind !== 'workspace') {
      for (const field of ['from', 'files'] as const)
        if (pkg[field] !== undefined)
          this.add(
            'WORLD_INVALID',
            [...at, field],
            `"${field}" belongs to a package of kind "workspace"; this one is "${pkg.kind}"`,
            'set "kind": "workspace" to give the package a file tree',
          );
      return;
    }
    if (pkg.state !== undefined)
      this.add(
        'WORLD_INVALID',
        [...at, 'state'],
        'a workspace package has no collections: its state is its file tree',
        'declare the files with "from" or "files"',
      );
    const read = readTree(pkg, this.dir, at);
    if ('findings' in read) {
      for (const f of read.findings) this.add('WORLD_INVALID', f.segments, f.message, f.suggestion);
      return;
    }
    this.trees.set(pkg.id, read.tree);
  }

  /** A package served as an MCP server: its endpoint, and one valid, distinct tool per operation. */
  private mcpPackage(pkg: PackageDef, at: PathSegment[], urls: Map<string, string>): void {
    const mcp = pkg.bindings.includes('mcp');
    if (!mcp) {
      if (pkg.mcp)
        this.add(
          'WORLD_REFERENCE',
          [...at, 'mcp'],
          `package ${JSON.stringify(pkg.id)} has no "mcp" binding, so this MCP server is never served`,
          'add "mcp" to the package\'s bindings',
        );
      return;
    }
    const url = pkg.mcp?.url;
    if (url !== undefined) {
      const urlAt = [...at, 'mcp', 'url'];
      if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) {
        this.add(
          'WORLD_INVALID',
          urlAt,
          `not an absolute http(s) URL: ${JSON.stringify(url)}`,
          'e.g. "https://tools.example.test/mcp"',
        );
      } else {
        const provider = providerAt(url);
        const parsed = new URL(url);
        const endpoint = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
        const other = urls.get(endpoint);
        if (provider)
          this.add(
            'WORLD_INVALID',
            urlAt,
            `${parsed.host} is the ${provider} API: the mock model answers every request to it, so this MCP server would never be served`,
            'give the package a host of its own, e.g. "https://tools.example.test/mcp"',
          );
        else if (other)
          this.add(
            'WORLD_INVALID',
            urlAt,
            `${endpoint} is already the MCP endpoint of package ${JSON.stringify(other)}`,
            'each MCP server has a URL of its own',
          );
        else urls.set(endpoint, pkg.id);
      }
    }
    const key = pkg.mcp?.idempotencyKey;
    const names = new Map<string, string>();
    pkg.operations.forEach((op, j) => {
      const opAt: PathSegment[] = [...at, 'operations', j];
      const name = mcpToolName(op);
      const nameAt = op.toolNames?.length ? [...opAt, 'toolNames', 0] : [...opAt, 'id'];
      if (!TOOL_NAME.test(name)) {
        this.add(
          'WORLD_INVALID',
          nameAt,
          `${JSON.stringify(name)} is not a valid MCP tool name: 1 to 128 letters, digits, "_", "-" or "."`,
          'give the operation a "toolNames" entry such as "save_record" (its first entry names the tool)',
        );
      } else if (names.has(name)) {
        this.add(
          'WORLD_INVALID',
          nameAt,
          `the MCP tool name ${JSON.stringify(name)} is already the tool of operation ${JSON.stringify(names.get(name))}`,
          'give one of them a "toolNames" entry of its own (its first entry names the tool)',
        );
      } else names.set(name, op.id);
      const problem = inputProblem(op.input, this.file.definitions);
      if (problem) this.add('WORLD_INVALID', [...opAt, 'input'], problem);
      if (
        key !== undefined &&
        this.propertiesOf(op.input) &&
        Object.hasOwn(this.propertiesOf(op.input)!, key)
      )
        this.add(
          'WORLD_INVALID',
          [...at, 'mcp', 'idempotencyKey'],
          `${JSON.stringify(key)} is also an input property of operation ${JSON.stringify(op.id)}, whose input would lose it`,
          `name another argument, or key the operation by that input field with "idempotency": { "keyFrom": ${JSON.stringify(key)} }`,
        );
    });
  }

  private operationDef(
    pkg: PackageDef,
    op: OperationDef,
    at: PathSegment[],
    http: boolean,
    routes: Map<string, number>,
    index: number,
    seenTools: Map<string, string>,
  ): void {
    const codes = new Set<string>();
    op.errors?.forEach((error, k) => {
      if (codes.has(error.code))
        this.add(
          'WORLD_INVALID',
          [...at, 'errors', k, 'code'],
          `duplicate error code ${JSON.stringify(error.code)}`,
        );
      codes.add(error.code);
    });
    const validateInput = this.schema(op.input ?? { type: 'object' }, [...at, 'input']);
    const validateOutput = op.output === undefined ? undefined : this.schema(op.output, [...at, 'output']);
    const properties = this.propertiesOf(op.input);
    const closed =
      op.input !== undefined &&
      (op.input as { additionalProperties?: unknown }).additionalProperties === false;

    for (const name of op.toolNames ?? []) {
      const other = seenTools.get(name);
      if (other) {
        this.add(
          'WORLD_INVALID',
          [...at, 'toolNames'],
          `tool name ${JSON.stringify(name)} is already used by ${other}`,
          'a tool name links tool calls to one operation',
        );
      } else seenTools.set(name, opKey(pkg.id, op.id));
    }

    let route: CompiledRoute | undefined;
    if (op.http) {
      if (!http) {
        this.add(
          'WORLD_REFERENCE',
          [...at, 'http'],
          `package ${JSON.stringify(pkg.id)} has no "http" binding, so this route is never served`,
          'add "http" to the package\'s bindings (and its "http": { "baseURL" })',
        );
      }
      const template = pathTemplateProblem(op.http.path);
      if (template)
        this.add(
          'WORLD_INVALID',
          [...at, 'http', 'path'],
          `malformed path template ${JSON.stringify(op.http.path)}: ${template}`,
          'a path parameter is a name in braces, e.g. "/records/{id}"',
        );
      const params = [...op.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const param of params) {
        if (properties && !Object.hasOwn(properties, param)) {
          this.add(
            'WORLD_REFERENCE',
            [...at, 'http', 'path'],
            `path parameter {${param}} is not a property of the input schema`,
            didYouMean(param, Object.keys(properties), 'input properties'),
          );
        }
      }
      const routeKey = `${op.http.method} ${op.http.path.replace(/\{[^}]+\}/g, '{}')}`;
      if (routes.has(routeKey)) {
        this.add(
          'WORLD_INVALID',
          [...at, 'http'],
          `${op.http.method} ${op.http.path} is already served by operation ${JSON.stringify(pkg.operations[routes.get(routeKey)!].id)}`,
        );
      } else routes.set(routeKey, index);
      const source = op.http.path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.+?^${}()|[\]\\*]/g, '\\$&')))
        .join('');
      route = {
        method: op.http.method,
        path: op.http.path,
        ...(op.http.status !== undefined && { status: op.http.status }),
        regex: new RegExp(`^${source}/?$`),
        params,
      };
    }

    if (
      op.idempotency?.keyFrom !== undefined &&
      properties &&
      !Object.hasOwn(properties, op.idempotency.keyFrom)
    ) {
      this.add(
        'WORLD_REFERENCE',
        [...at, 'idempotency', 'keyFrom'],
        `${JSON.stringify(op.idempotency.keyFrom)} is not a property of the input schema`,
        didYouMean(op.idempotency.keyFrom, Object.keys(properties), 'input properties'),
      );
    }

    const compiled: CompiledOperation = {
      key: opKey(pkg.id, op.id),
      packageId: pkg.id,
      operationId: op.id,
      def: op,
      bindings: new Set(pkg.bindings),
      errors: new Map((op.errors ?? []).map((e) => [e.code, e])),
      // A schema that failed to compile is already a finding; the definition is never built then.
      validateInput: validateInput ?? compileSchema(true),
      validateOutput,
      inputProperties: properties,
      behavior: undefined,
      toolNames:
        op.toolNames ?? [op.id, op.id.replace(/\./g, '_')].filter((n, i, all) => all.indexOf(n) === i),
      route,
    };
    this.compiled.set(compiled.key, compiled);
    if (pkg.kind === 'workspace' && op.behavior === undefined && isWorkspaceOperation(op.id))
      compiled.behavior = { kind: 'workspace', operation: op.id };
    if (op.behavior !== undefined) {
      const result = this.behavior(op.behavior, compiled, [...at, 'behavior'], closed);
      if ('behavior' in result) compiled.behavior = result.behavior;
    }
  }

  private propertiesOf(schema: JsonSchemaObject | undefined): Record<string, JsonSchemaObject> | undefined {
    if (!schema || typeof schema !== 'object') return undefined;
    let s = schema as { $ref?: string; properties?: Record<string, JsonSchemaObject> };
    if (typeof s.$ref === 'string' && s.$ref.startsWith('#/definitions/')) {
      s = (this.file.definitions?.[s.$ref.slice('#/definitions/'.length)] ?? {}) as typeof s;
    }
    return s.properties && typeof s.properties === 'object' ? s.properties : undefined;
  }

  private schema(schema: JsonSchemaObject | boolean, at: PathSegment[]): ValidateFunction | undefined {
    try {
      if (typeof schema === 'boolean') return compileSchema(schema);
      const own = (schema as { definitions?: Record<string, unknown> }).definitions;
      const shared = this.file.definitions;
      return compileSchema(shared || own ? { ...schema, definitions: { ...shared, ...own } } : schema);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0];
      const ref = /can't resolve reference (\S+)/.exec(message);
      if (ref) {
        const name = ref[1].replace('#/definitions/', '');
        this.add(
          'WORLD_REFERENCE',
          at,
          `the schema refers to ${ref[1]}, which the world's "definitions" do not have`,
          didYouMean(name, Object.keys(this.file.definitions ?? {}), 'definitions'),
        );
      } else this.add('WORLD_INVALID', at, `not a valid JSON Schema: ${message}`);
      return undefined;
    }
  }

  /** A behavior for an operation: built-in checks now, module loading later. */
  behavior(
    spec: BehaviorDef | string,
    op: CompiledOperation,
    at: PathSegment[],
    closedInput = false,
  ): { behavior: CompiledBehavior } | { pending: true } | { failed: true } {
    let def: BehaviorDef;
    let defAt = at;
    if (typeof spec === 'string') {
      const named = this.file.behaviors?.[spec];
      if (!named) {
        this.add(
          'WORLD_REFERENCE',
          at,
          `unknown behavior ${JSON.stringify(spec)}`,
          didYouMean(spec, Object.keys(this.file.behaviors ?? {}), 'behaviors (under "behaviors")'),
        );
        return { failed: true };
      }
      def = named;
      defAt = ['behaviors', spec];
    } else def = spec;

    if (def.builtin !== undefined) {
      let ok =
        def.collection === undefined ||
        this.collection(op.packageId, def.collection, [...defAt, 'collection']);
      // create with generated keys cannot conflict when the input has no key to give.
      const keyless =
        def.builtin === 'create' &&
        def.generate !== undefined &&
        op.inputProperties !== undefined &&
        !Object.hasOwn(op.inputProperties, def.key ?? 'id');
      for (const code of keyless ? [] : builtinCodes(def)) {
        if (!op.errors.has(code)) {
          ok = false;
          const field = def.builtin === 'create' ? 'conflict' : 'notFound';
          const declared = def[field] !== undefined;
          this.add(
            'WORLD_REFERENCE',
            declared ? [...defAt, field] : defAt,
            `the built-in ${def.builtin} fails with ${code} (${def.builtin === 'create' ? 'the key exists' : 'no such record'}), which ${op.key} does not declare`,
            `declare it in the operation's "errors", e.g. { "code": "${code}", "status": ${def.builtin === 'create' ? 409 : 404} }`,
          );
        }
      }
      const key = def.key ?? 'id';
      const props = op.inputProperties;
      if (
        def.builtin !== 'list' &&
        props &&
        !Object.hasOwn(props, key) &&
        !(def.builtin === 'create' && def.generate !== undefined)
      ) {
        ok = false;
        this.add(
          'WORLD_REFERENCE',
          [...defAt, def.key !== undefined ? 'key' : 'builtin'],
          `the key field ${JSON.stringify(key)} is not a property of ${op.key}'s input`,
          didYouMean(key, Object.keys(props), 'input properties'),
        );
      }
      for (const [k, field] of (def.filter ?? []).entries()) {
        if (props && closedInput && !Object.hasOwn(props, field)) {
          ok = false;
          this.add(
            'WORLD_REFERENCE',
            [...defAt, 'filter', k],
            `${JSON.stringify(field)} is not a property of ${op.key}'s input`,
            didYouMean(field, Object.keys(props), 'input properties'),
          );
        }
      }
      if (def.module !== undefined) {
        ok = false;
        this.add(
          'WORLD_INVALID',
          [...defAt, 'module'],
          'a behavior is either a built-in or a module, not both',
        );
      }
      return ok ? { behavior: { kind: 'builtin', def: def as BuiltinDef } } : { failed: true };
    }

    const file = this.modulePath(def.module!, [...defAt, 'module']);
    if (!file) return { failed: true };
    const candidates = def.export !== undefined ? [def.export] : [op.operationId, 'default'];
    this.pendingModules.push({
      at: [...defAt, def.export !== undefined ? 'export' : 'module'],
      file,
      candidates,
      done: (handler, exportName) => {
        op.behavior = { kind: 'module', handler, file, exportName };
      },
    });
    return { pending: true };
  }

  private modulePath(path: string, at: PathSegment[]): string | undefined {
    const resolved = resolveModule(path, this.dir);
    if ('error' in resolved) {
      this.add(
        'WORLD_MODULE_ERROR',
        at,
        `behavior module ${JSON.stringify(path)}: ${resolved.error}`,
        'module paths are relative to the world file',
      );
      return undefined;
    }
    this.moduleFiles.add(resolved.file);
    return resolved.file;
  }

  loadModules(): void {
    const loaded = new Map<string, { exports: unknown } | { error: string }>();
    for (const pending of this.pendingModules) {
      let result = loaded.get(pending.file);
      if (!result) {
        result = requireModule(pending.file);
        loaded.set(pending.file, result);
      }
      if ('error' in result) {
        this.add('WORLD_MODULE_ERROR', pending.at, `behavior module ${pending.file}: ${result.error}`);
        continue;
      }
      const handler = handlerOf(result.exports, pending.candidates);
      if ('error' in handler) {
        const meant = closest(pending.candidates[0], handler.names);
        this.add(
          'WORLD_MODULE_ERROR',
          pending.at,
          `behavior module ${pending.file} ${handler.error}`,
          meant
            ? `did you mean "export": ${JSON.stringify(meant)}?`
            : handler.names.length > 0
              ? `its function exports: ${handler.names.join(', ')}`
              : 'export a function (ctx) => output',
        );
        continue;
      }
      pending.done(handler.handler, handler.exportName);
    }
    this.pendingModules.length = 0;
  }

  private actors(actors: ActorDef[]): void {
    const seen = new Set<string>();
    actors.forEach((actor, i) => {
      if (seen.has(actor.id))
        this.add('WORLD_INVALID', ['actors', i, 'id'], `duplicate actor id ${JSON.stringify(actor.id)}`);
      seen.add(actor.id);
      for (const field of ['allow', 'deny'] as const)
        for (const [j, pattern] of (actor[field] ?? []).entries())
          this.permission(pattern, ['actors', i, field, j]);
    });
  }

  /** `packageId/operationId` with `*` wildcards: a literal package or operation must exist, or the pattern covers nothing. */
  private permission(pattern: string, at: PathSegment[]): void {
    if (pattern === '*') return;
    const slash = pattern.indexOf('/');
    if (slash === -1) {
      if (!pattern.includes('*'))
        this.add(
          'WORLD_INVALID',
          at,
          `${JSON.stringify(pattern)} is not a "packageId/operationId" pattern, so it covers nothing`,
          this.packages.has(pattern) ? `write "${pattern}/*" for every operation of the package` : undefined,
        );
      return;
    }
    const packageId = pattern.slice(0, slash);
    const operationId = pattern.slice(slash + 1);
    if (packageId.includes('*')) return;
    const pkg = this.packages.get(packageId);
    if (!pkg) {
      this.add(
        'WORLD_REFERENCE',
        at,
        `unknown package ${JSON.stringify(packageId)} in ${JSON.stringify(pattern)}`,
        didYouMean(packageId, this.packages.keys(), 'packages'),
      );
      return;
    }
    if (!operationId.includes('*') && !pkg.ops.has(operationId))
      this.add(
        'WORLD_REFERENCE',
        at,
        `package ${JSON.stringify(packageId)} has no operation ${JSON.stringify(operationId)}`,
        didYouMean(operationId, pkg.ops.keys(), `operations of ${packageId}`),
      );
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

  private collection(packageId: string, name: string, at: PathSegment[]): boolean {
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

  packageId(id: string, at: PathSegment[]): { def: PackageDef; ops: Map<string, OperationDef> } | undefined {
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

  operationId(
    pkg: { def: PackageDef; ops: Map<string, OperationDef> },
    id: string,
    at: PathSegment[],
  ): OperationDef | undefined {
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

  private when(when: RuleWhen | undefined, op: CompiledOperation | undefined, at: PathSegment[]): void {
    if (!when) return;
    if (when.actorId !== undefined) this.actorId(when.actorId, [...at, 'actorId']);
    const props = op?.inputProperties;
    const closed =
      (op?.def.input as { additionalProperties?: unknown } | undefined)?.additionalProperties === false;
    if (props && closed) {
      for (const key of Object.keys(when.arguments ?? {})) {
        if (!Object.hasOwn(props, key))
          this.add(
            'WORLD_REFERENCE',
            [...at, 'arguments', key],
            `${op!.key}'s input has no property ${JSON.stringify(key)}, so this rule never matches`,
            didYouMean(key, Object.keys(props), 'input properties'),
          );
      }
    }
  }

  private declaredCode(op: CompiledOperation, code: string, at: PathSegment[]): void {
    if (!op.errors.has(code))
      this.add(
        'WORLD_REFERENCE',
        at,
        `${op.key} does not declare the error ${JSON.stringify(code)}`,
        op.errors.size > 0
          ? didYouMean(code, op.errors.keys(), 'errors')
          : 'declare it in the operation\'s "errors"',
      );
  }

  rules(rules: ToolOverride[], at: PathSegment[]): void {
    const ids = new Map<string, number>();
    rules.forEach((rule, i) => {
      const ruleAt = [...at, i];
      if (rule.id !== undefined) {
        if (ids.has(rule.id))
          this.add(
            'WORLD_INVALID',
            [...ruleAt, 'id'],
            `duplicate rule id ${JSON.stringify(rule.id)} in this scope (also at index ${ids.get(rule.id)})`,
            'ids are unique within a scope; a higher scope replaces a rule by reusing its id',
          );
        else ids.set(rule.id, i);
      }
      const ref = this.operation(rule.operation, [...ruleAt, 'operation']);
      const op = ref && this.compiled.get(opKey(ref.packageId, ref.operationId));
      this.when(rule.when, op, [...ruleAt, 'when']);
      if (!op) return;
      const outcome = rule.outcome;
      if (outcome.kind === 'error') this.declaredCode(op, outcome.code, [...ruleAt, 'outcome', 'code']);
      if (outcome.kind === 'return' && op.validateOutput && !op.validateOutput(outcome.value)) {
        this.add(
          'WORLD_INVALID',
          [...ruleAt, 'outcome', 'value'],
          `does not match the output schema of ${op.key}: ${ajvMessages(op.validateOutput.errors, outcome.value).join('; ')}`,
        );
      }
    });
  }

  faults(faults: FaultDef[], at: PathSegment[]): void {
    faults.forEach((fault, i) => {
      const faultAt = [...at, i];
      const ref = this.operation(fault.operation, [...faultAt, 'operation']);
      const op = ref && this.compiled.get(opKey(ref.packageId, ref.operationId));
      this.when(fault.when, op, [...faultAt, 'when']);
      if (op && fault.kind === 'error' && fault.code !== undefined)
        this.declaredCode(op, fault.code, [...faultAt, 'code']);
    });
  }

  events(events: ScheduledEventDef[], at: PathSegment[]): void {
    events.forEach((event, i) => {
      const eventAt = [...at, i];
      if (this.packageId(event.packageId, [...eventAt, 'packageId']) && event.apply)
        this.collection(event.packageId, event.apply.collection, [...eventAt, 'apply', 'collection']);
      if (event.module !== undefined) {
        const file = this.modulePath(event.module, [...eventAt, 'module']);
        if (file) {
          this.pendingModules.push({
            at: [...eventAt, event.export !== undefined ? 'export' : 'module'],
            file,
            candidates: [event.export ?? 'default'],
            done: (handler) => this.eventHandlers.set(event, handler),
          });
        }
      }
    });
  }

  scenario(scenario: ScenarioDef, at: PathSegment[]): void {
    for (const id of Object.keys(scenario.state ?? {})) this.packageId(id, [...at, 'state', id]);
    this.rules(scenario.toolOverrides ?? [], [...at, 'toolOverrides']);
    this.faults(scenario.faults ?? [], [...at, 'faults']);
    this.events(scenario.events ?? [], [...at, 'events']);
  }

  private filter(filter: OperationFilter, at: PathSegment[]): void {
    const pkg = this.packageId(filter.packageId, [...at, 'packageId']);
    if (!pkg) return;
    let op: CompiledOperation | undefined;
    if (filter.operationId !== undefined) {
      if (this.operationId(pkg, filter.operationId, [...at, 'operationId']))
        op = this.compiled.get(opKey(filter.packageId, filter.operationId));
    }
    if (filter.actorId !== undefined) this.actorId(filter.actorId, [...at, 'actorId']);
    if (filter.code !== undefined && !Object.hasOwn(ENGINE_ERRORS, filter.code)) {
      const declared = op
        ? [...op.errors.keys()]
        : [...pkg.ops.values()].flatMap((o) => (o.errors ?? []).map((e) => e.code));
      if (!declared.includes(filter.code))
        this.add(
          'WORLD_REFERENCE',
          [...at, 'code'],
          `no error ${JSON.stringify(filter.code)} is declared by ${op ? op.key : `the operations of ${filter.packageId}`}`,
          didYouMean(filter.code, [...declared, ...Object.keys(ENGINE_ERRORS)], 'error codes'),
        );
    }
  }

  criterion(criterion: Criterion, at: PathSegment[]): void {
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
      this.add(
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
      if ('error' in parsed) this.add('WORLD_INVALID', [...at, 'state'], `not a state path: ${parsed.error}`);
      else if (parsed.length > 0 && typeof parsed[0] === 'string')
        this.packageId(parsed[0], [...at, 'state']);
      if (checks.includes('matches'))
        this.add('WORLD_INVALID', [...at, 'matches'], '"matches" belongs to a "file" criterion');
      else if (checks.length !== 1)
        this.add(
          'WORLD_INVALID',
          at,
          checks.length === 0
            ? 'a state criterion says nothing about the value'
            : `a state criterion has one check; this one has ${checks.join(' and ')}`,
          'give it one of "equals", "contains" or "exists"',
        );
    } else if (criterion.file !== undefined) {
      this.fileCriterion(criterion, checks, at);
    } else if (checks.length > 0) {
      this.add(
        'WORLD_INVALID',
        [...at, checks[0]],
        `"${checks[0]}" belongs to a "state" or "file" criterion`,
      );
    }
    if (criterion.fileUnchanged !== undefined) {
      this.workspaceOf(criterion, at);
      this.relativePath(criterion.fileUnchanged, [...at, 'fileUnchanged']);
    }
    if (criterion.noChangesOutside !== undefined) {
      this.workspaceOf(criterion, at);
      for (const [i, glob] of criterion.noChangesOutside.entries())
        this.relativePath(glob, [...at, 'noChangesOutside', i]);
    }
    if (
      criterion.workspace !== undefined &&
      !kinds.some((k) => k.startsWith('file') || k === 'noChangesOutside')
    )
      this.add(
        'WORLD_INVALID',
        [...at, 'workspace'],
        '"workspace" belongs to a "file", "fileUnchanged" or "noChangesOutside" criterion',
      );
    if (criterion.times !== undefined && criterion.called === undefined)
      this.add('WORLD_INVALID', [...at, 'times'], '"times" belongs to a "called" criterion');
    if (criterion.called) this.filter(criterion.called, [...at, 'called']);
    if (criterion.notCalled) this.filter(criterion.notCalled, [...at, 'notCalled']);
    const effect = criterion.noDuplicateEffects;
    if (effect?.packageId !== undefined)
      this.operation({ packageId: effect.packageId, operationId: effect.operationId }, [
        ...at,
        'noDuplicateEffects',
      ]);
    else if (effect && ![...this.packages.values()].some((p) => p.ops.has(effect.operationId)))
      this.add(
        'WORLD_REFERENCE',
        [...at, 'noDuplicateEffects', 'operationId'],
        `no package has an operation ${JSON.stringify(effect.operationId)}`,
        didYouMean(
          effect.operationId,
          [...this.packages.values()].flatMap((p) => [...p.ops.keys()]),
          'operations',
        ),
      );
    // Codes in noErrors.except may be anything: listing a code that never happens is harmless.
  }

  private fileCriterion(criterion: Criterion, checks: string[], at: PathSegment[]): void {
    this.workspaceOf(criterion, at);
    this.relativePath(criterion.file!, [...at, 'file']);
    if (checks.length !== 1) {
      this.add(
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
      this.add(
        'WORLD_INVALID',
        [...at, check],
        `a file criterion's "${check}" is a string (the file's text)`,
      );
    else if (check === 'matches') {
      try {
        new RegExp(value as string);
      } catch (error) {
        this.add(
          'WORLD_INVALID',
          [...at, 'matches'],
          `not a regular expression: ${(error as Error).message}`,
        );
      }
    }
  }

  /** The workspace package a file criterion reads: the named one, else the world's only one. */
  private workspaceOf(criterion: Criterion, at: PathSegment[]): void {
    const workspaces = this.file.packages.filter((p) => p.kind === 'workspace').map((p) => p.id);
    if (criterion.workspace !== undefined) {
      if (!workspaces.includes(criterion.workspace))
        this.add(
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
      this.add(
        'WORLD_REFERENCE',
        at,
        'a file criterion needs a workspace, and this world has no package of kind "workspace"',
        'declare one with "from" or "files"',
      );
    else if (workspaces.length > 1)
      this.add(
        'WORLD_INVALID',
        at,
        `this world has ${workspaces.length} workspace packages (${workspaces.join(', ')}): name the one the criterion reads`,
        `add "workspace": ${JSON.stringify(workspaces[0])}`,
      );
  }

  private relativePath(path: string, at: PathSegment[]): void {
    const segments = relativeSegments(path);
    if (!Array.isArray(segments))
      this.add(
        'WORLD_INVALID',
        at,
        `${JSON.stringify(path)} is outside the workspace: it ${segments.problem}`,
        'paths and globs are relative to the workspace folder, e.g. "src/app.ts"',
      );
  }

  definition(file: string | undefined): WorldDefinition {
    const source = this.file;
    const packages = new Map<string, CompiledPackage>();
    for (const [id, pkg] of this.packages) {
      const operations = new Map<string, CompiledOperation>();
      for (const opId of pkg.ops.keys()) operations.set(opId, this.compiled.get(opKey(id, opId))!);
      const tree = this.trees.get(id);
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
    const dir = this.dir;
    const eventHandlers = this.eventHandlers;
    const definition: WorldDefinition = {
      file,
      dir,
      name: source.name ?? 'world',
      hash: hashOf(
        this.trees.size > 0 ? { source, workspaces: treeDigests(this.trees) } : source,
        this.moduleFiles,
      ),
      seed: source.seed ?? 1,
      source,
      packages,
      operations: new Map(this.compiled),
      actors,
      defaultActor: source.defaultActor ?? source.actors?.[0]?.id ?? 'agent',
      idempotencyHeader: source.idempotency?.header ?? 'Idempotency-Key',
      eventHandlers,
      compileBehavior(spec, operation, at) {
        const checker = new Checker(source, dir, definition);
        // A copy, so a failed swap leaves the world's own operation untouched.
        const target: CompiledOperation = { ...operation, behavior: undefined };
        const result = checker.behavior(spec, target, at);
        if ('failed' in result) return { findings: checker.findings };
        if ('behavior' in result) return { behavior: result.behavior };
        checker.loadModules();
        if (checker.findings.length > 0) return { findings: checker.findings };
        return { behavior: target.behavior! };
      },
    };
    return definition;
  }
}
