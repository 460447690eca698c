/** Packages and their operations: ids, HTTP routes, tool names, schemas compiled, behaviors checked. */
import type { ValidateFunction } from 'ajv';
import type { PathSegment } from '../../file-format/json-path';
import { didYouMean } from '../dialect';
import { type CompiledOperation, type CompiledRoute, opKey } from '../model';
import { operationValidator as compileSchema } from '../operation-schema';
import type { JsonSchemaObject, OperationDef, PackageDef } from '../types';
import { isWorkspaceOperation } from '../workspace/operation-ids';
import { checkBehavior } from './behavior';
import type { CheckContext } from './context';
import { providerAt } from './hosts';
import { checkMcpPackage } from './mcp';
import { checkWorkspacePackage } from './workspace';

/** Every package: unique ids, a base URL of its own, its MCP server or file tree, its operations. */
export function checkPackages(ctx: CheckContext): void {
  const seenTools = new Map<string, string>();
  const mcpUrls = new Map<string, string>();
  ctx.file.packages.forEach((pkg, i) => {
    const at: PathSegment[] = ['packages', i];
    if (ctx.packages.get(pkg.id)?.def !== pkg) {
      ctx.add(
        'WORLD_INVALID',
        [...at, 'id'],
        `duplicate package id ${JSON.stringify(pkg.id)}`,
        'package ids are unique',
      );
      return;
    }
    const http = pkg.bindings.includes('http');
    if (http && pkg.http && !/^https?:\/\/[^/]/.test(pkg.http.baseURL)) {
      ctx.add(
        'WORLD_INVALID',
        [...at, 'http', 'baseURL'],
        `not an absolute http(s) URL: ${JSON.stringify(pkg.http.baseURL)}`,
        'e.g. "https://records.example.test/v1"',
      );
    } else if (http && pkg.http) {
      const provider = providerAt(pkg.http.baseURL);
      if (provider)
        ctx.add(
          'WORLD_INVALID',
          [...at, 'http', 'baseURL'],
          `${new URL(pkg.http.baseURL).host} is the ${provider} API: the mock model answers every request to it, so this package would never be served`,
          'give the package a host of its own, e.g. "https://records.example.test/v1"',
        );
    }
    checkMcpPackage(ctx, pkg, at, mcpUrls);
    checkWorkspacePackage(ctx, pkg, at);
    const seenOps = new Set<string>();
    const routes = new Map<string, number>();
    pkg.operations.forEach((op, j) => {
      const opAt: PathSegment[] = [...at, 'operations', j];
      if (seenOps.has(op.id)) {
        ctx.add(
          'WORLD_INVALID',
          [...opAt, 'id'],
          `duplicate operation id ${JSON.stringify(op.id)} in package ${JSON.stringify(pkg.id)}`,
        );
        return;
      }
      seenOps.add(op.id);
      operationDef(ctx, pkg, op, opAt, http, routes, j, seenTools);
    });
  });
  if (ctx.file.defaultActor !== undefined) ctx.actorId(ctx.file.defaultActor, ['defaultActor']);
}

function operationDef(
  ctx: CheckContext,
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
      ctx.add(
        'WORLD_INVALID',
        [...at, 'errors', k, 'code'],
        `duplicate error code ${JSON.stringify(error.code)}`,
      );
    codes.add(error.code);
  });
  const validateInput = compileOperationSchema(ctx, op.input ?? { type: 'object' }, [...at, 'input']);
  const validateOutput =
    op.output === undefined ? undefined : compileOperationSchema(ctx, op.output, [...at, 'output']);
  const properties = ctx.propertiesOf(op.input);
  const closed =
    op.input !== undefined && (op.input as { additionalProperties?: unknown }).additionalProperties === false;

  for (const name of op.toolNames ?? []) {
    const other = seenTools.get(name);
    if (other) {
      ctx.add(
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
      ctx.add(
        'WORLD_REFERENCE',
        [...at, 'http'],
        `package ${JSON.stringify(pkg.id)} has no "http" binding, so this route is never served`,
        'add "http" to the package\'s bindings (and its "http": { "baseURL" })',
      );
    }
    const template = pathTemplateProblem(op.http.path);
    if (template)
      ctx.add(
        'WORLD_INVALID',
        [...at, 'http', 'path'],
        `malformed path template ${JSON.stringify(op.http.path)}: ${template}`,
        'a path parameter is a name in braces, e.g. "/records/{id}"',
      );
    const params = [...op.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const param of params) {
      if (properties && !Object.hasOwn(properties, param)) {
        ctx.add(
          'WORLD_REFERENCE',
          [...at, 'http', 'path'],
          `path parameter {${param}} is not a property of the input schema`,
          didYouMean(param, Object.keys(properties), 'input properties'),
        );
      }
    }
    const routeKey = `${op.http.method} ${op.http.path.replace(/\{[^}]+\}/g, '{}')}`;
    if (routes.has(routeKey)) {
      ctx.add(
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
    ctx.add(
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
    toolNames: op.toolNames ?? [op.id, op.id.replace(/\./g, '_')].filter((n, i, all) => all.indexOf(n) === i),
    route,
  };
  ctx.compiled.set(compiled.key, compiled);
  if (pkg.kind === 'workspace' && op.behavior === undefined && isWorkspaceOperation(op.id))
    compiled.behavior = { kind: 'workspace', operation: op.id };
  if (op.behavior !== undefined) {
    const result = checkBehavior(ctx, op.behavior, compiled, [...at, 'behavior'], closed);
    if ('behavior' in result) compiled.behavior = result.behavior;
  }
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

function compileOperationSchema(
  ctx: CheckContext,
  schema: JsonSchemaObject | boolean,
  at: PathSegment[],
): ValidateFunction | undefined {
  try {
    if (typeof schema === 'boolean') return compileSchema(schema);
    const own = (schema as { definitions?: Record<string, unknown> }).definitions;
    const shared = ctx.file.definitions;
    return compileSchema(shared || own ? { ...schema, definitions: { ...shared, ...own } } : schema);
  } catch (error) {
    const message = (error as Error).message.split('\n')[0];
    const ref = /can't resolve reference (\S+)/.exec(message);
    if (ref) {
      const name = ref[1].replace('#/definitions/', '');
      ctx.add(
        'WORLD_REFERENCE',
        at,
        `the schema refers to ${ref[1]}, which the world's "definitions" do not have`,
        didYouMean(name, Object.keys(ctx.file.definitions ?? {}), 'definitions'),
      );
    } else ctx.add('WORLD_INVALID', at, `not a valid JSON Schema: ${message}`);
    return undefined;
  }
}
