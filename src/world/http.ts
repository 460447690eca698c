/**
 * The HTTP transport: every operation with an HTTP route is served at its package's base
 * URL, method and path. Path parameters, query parameters and a JSON object body become
 * the input (path over query over body; strings are coerced to the input schema's
 * number / integer / boolean types). A success answers with the output as JSON; a failure
 * with the envelope's status and `{ "error": envelope }`. The call goes through the world's one
 * door (./host.ts) as mockTool's does, so both transports share state and evidence.
 */
import type { CompiledOperation, WorldDefinition } from './compile';
import type { ToolDoor } from './door';
import type { WorldEngine } from './engine';
import type { JsonSchemaObject, ToolErrorEnvelope } from './types';

export const ACTOR_HEADER = 'x-understudy-actor';

interface Base {
  href: string;
  pathname: string;
  packageId: string;
  operations: CompiledOperation[];
}

export interface HttpRequestParts {
  url: string;
  method: string;
  header(name: string): string | null;
  body(): Promise<string>;
  signal?: AbortSignal;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function errorResponse(error: ToolErrorEnvelope): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  return json(error.status, { error }, headers);
}

function typeOf(schema: JsonSchemaObject | undefined): string | undefined {
  const type = schema?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}

function coerce(raw: string, schema: JsonSchemaObject | undefined): unknown {
  switch (typeOf(schema)) {
    case 'integer':
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    default:
      return raw;
  }
}

export class WorldHttpRouter {
  private readonly bases: Base[] = [];

  constructor(definition: WorldDefinition) {
    for (const [packageId, pkg] of definition.packages) {
      if (!pkg.def.bindings.includes('http') || !pkg.def.http) continue;
      const url = new URL(pkg.def.http.baseURL);
      const pathname = url.pathname.replace(/\/+$/, '');
      const href = `${url.origin}${pathname}`;
      const operations = [...pkg.operations.values()].filter((op) => op.route);
      this.bases.push({ href, pathname, packageId, operations });
    }
    // The longest base first, so a package below another's base URL gets its own requests.
    this.bases.sort((a, b) => b.href.length - a.href.length);
  }

  get empty(): boolean {
    return this.bases.length === 0;
  }

  serves(origin: string): boolean {
    return this.bases.some((base) => new URL(base.href).origin === origin);
  }

  /** The package base a URL is below, if any (cheap: string prefixes). */
  baseOf(url: string): Base | undefined {
    for (const base of this.bases) {
      if (!url.startsWith(base.href)) continue;
      const next = url.charAt(base.href.length);
      if (next === '' || next === '/' || next === '?' || next === '#') return base;
    }
    return undefined;
  }

  /** A request below `base`, served by `engine` as `actorId` unless its actor header names another. */
  async serve(
    door: ToolDoor,
    engine: WorldEngine,
    base: Base,
    request: HttpRequestParts,
    actorId: string,
  ): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(base.pathname.length) || '/';
    const method = request.method.toUpperCase();
    let params: RegExpExecArray | null = null;
    let op: CompiledOperation | undefined;
    const allowed: string[] = [];
    for (const candidate of base.operations) {
      const match = candidate.route!.regex.exec(path);
      if (!match) continue;
      if (candidate.route!.method === method) {
        op = candidate;
        params = match;
        break;
      }
      allowed.push(candidate.route!.method);
    }
    if (!op || !params) {
      const routes = base.operations.map((o) => `${o.route!.method} ${o.route!.path} (${o.operationId})`);
      const what =
        allowed.length > 0
          ? `does not accept ${method} (it accepts ${allowed.join(', ')})`
          : 'has no such route';
      const message =
        `${method} ${request.url}: package ${JSON.stringify(base.packageId)} of the world ${what}.\n` +
        `  Its HTTP routes below ${base.href}: ${routes.length > 0 ? routes.join(', ') : 'none'}.`;
      door.fail('UNKNOWN_OPERATION', message);
      const status = allowed.length > 0 ? 405 : 404;
      return json(status, { error: { code: 'UNKNOWN_OPERATION', message, retryable: false, status } });
    }

    const properties = op.inputProperties;
    const input: Record<string, unknown> = {};
    const text = method === 'GET' ? '' : await request.body();
    if (text.trim() !== '') {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return errorResponse({
          code: 'INVALID_INPUT',
          message: 'the request body is not valid JSON',
          retryable: false,
          status: 400,
        });
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return errorResponse({
          code: 'INVALID_INPUT',
          message: 'the request body must be a JSON object',
          retryable: false,
          status: 400,
        });
      }
      Object.assign(input, body);
    }
    for (const key of new Set(url.searchParams.keys())) {
      const values = url.searchParams.getAll(key);
      const schema = properties?.[key];
      input[key] =
        typeOf(schema) === 'array' || values.length > 1
          ? values.map((v) => coerce(v, (schema?.items as JsonSchemaObject | undefined) ?? undefined))
          : coerce(values[0], schema);
    }
    op.route!.params.forEach((name, i) => {
      input[name] = coerce(decodeURIComponent(params![i + 1]), properties?.[name]);
    });

    const key = request.header(engine.definition.idempotencyHeader);
    const result = await door.callTool(
      {
        packageId: op.packageId,
        operationId: op.operationId,
        input,
        actorId: request.header(ACTOR_HEADER) ?? actorId,
        ...(key !== null && { idempotencyKey: key }),
      },
      { transport: 'http', engine, ...(request.signal && { signal: request.signal }) },
    );
    if (result.outcome.kind === 'error') return errorResponse(result.outcome.error);
    const value = result.outcome.value;
    if (value === undefined || value === null) return new Response(null, { status: op.route!.status ?? 204 });
    return json(op.route!.status ?? 200, value);
  }
}
