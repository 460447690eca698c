/**
 * Requests the file world answers: intercepted ones (fetch, msw) to a package's HTTP base URL
 * or MCP endpoint, and those that arrive over the served port from another process (a route
 * below a package, an MCP endpoint, one operation called by name). Their tool calls go through
 * the host's door.
 */
import { headerOf } from '../../fetch-input';
import type { WorldError } from '../errors';
import type { HttpRequestParts } from '../transports/http';
import { type HostView, MISSING } from './contract';
import type { HostMcp } from './mcp';

type RequestParts = Omit<HttpRequestParts, 'url'>;

export class HostServing {
  constructor(
    private readonly host: HostView,
    private readonly mcp: HostMcp,
  ) {}

  /** Whether a package of the loaded world has its HTTP base URL or its MCP endpoint at this origin. */
  serves(origin: string): boolean {
    return (this.host.target().router?.serves(origin) ?? false) || this.mcp.serves(origin);
  }

  private serve(url: string, parts: () => RequestParts): Promise<Response> | undefined {
    const endpoint = this.mcp.at(url);
    if (endpoint) return this.mcp.serve(endpoint, { url, ...parts() });
    const { router, engine, actorId } = this.host.target();
    if (!router || router.empty) return undefined;
    const base = router.baseOf(url);
    if (!base) return undefined;
    return router.serve(
      this.host,
      engine!,
      base,
      { url, ...parts() },
      actorId ?? engine!.definition.defaultActor,
    );
  }

  handleFetch(
    url: string,
    input: unknown,
    init: RequestInit | undefined,
    method: string,
    body: () => Promise<string>,
    signal?: AbortSignal,
  ) {
    return this.serve(url, () => ({
      method,
      header: (name) => headerOf(input, init, name),
      body,
      ...(signal && { signal }),
    }));
  }

  /** A request msw intercepted, or one that arrived over the served port for `url` (a world host URL). */
  handleRequest(request: Request, url = request.url): Promise<Response> | undefined {
    return this.serve(url, () => partsOf(request));
  }

  /** The packages the served port offers: HTTP routes (a base URL) and MCP endpoints (the mcp binding). */
  servedPackages(): { http: string[]; mcp: string[] } {
    const http: string[] = [];
    const mcp: string[] = [];
    for (const [id, pkg] of this.host.definition()?.packages ?? []) {
      if (pkg.def.bindings.includes('http') && pkg.def.http) http.push(id);
      if (pkg.def.bindings.includes('mcp')) mcp.push(id);
    }
    return { http, mcp };
  }

  /** A request below a package's served HTTP base: answered as at its `http.baseURL` + `rest`. */
  servedHttp(packageId: string, rest: string, request: Request): Promise<Response> | undefined {
    const pkg = this.host.definition()?.packages.get(packageId);
    const baseURL = pkg?.def.http?.baseURL;
    if (!baseURL || !pkg?.def.bindings.includes('http')) return undefined;
    return this.serve(`${baseURL.replace(/\/+$/, '')}${rest}`, () => partsOf(request));
  }

  /** A request to a package's served MCP endpoint (with or without an `mcp.url`). */
  servedMcp(packageId: string, request: Request): Promise<Response> | undefined {
    const endpoint = this.mcp.ofPackage(packageId);
    if (!endpoint) return undefined;
    return this.mcp.serve(endpoint, { url: request.url, ...partsOf(request) });
  }

  /**
   * One operation called by name (the CLI's `understudy tool call`): `{ output }` on success, the
   * envelope's status and `{ error }` on failure, as the HTTP transport answers.
   */
  async servedCall(
    packageId: string,
    operationId: string,
    body: { input?: unknown; actorId?: string; idempotencyKey?: string },
    signal?: AbortSignal,
  ): Promise<Response> {
    const { engine, actorId } = this.host.target();
    const json = (status: number, value: unknown) =>
      new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
    if (!engine) {
      const message = `a tool call to ${packageId}/${operationId} arrived over the served port, but ${MISSING}`;
      this.host.fail('WORLD_MISSING', message);
      return json(404, { error: { code: 'WORLD_MISSING', message, retryable: false, status: 404 } });
    }
    try {
      engine.operation(packageId, operationId);
    } catch (error) {
      const { code, message } = error as WorldError;
      this.host.fail(code, `understudy tool call ${packageId}/${operationId}: ${message}`);
      return json(404, { error: { code, message, retryable: false, status: 404 } });
    }
    const result = await this.host.callTool(
      {
        packageId,
        operationId,
        input: body.input ?? {},
        actorId: body.actorId ?? actorId ?? engine.definition.defaultActor,
        ...(body.idempotencyKey !== undefined && { idempotencyKey: body.idempotencyKey }),
      },
      { transport: 'cli', engine, ...(signal && { signal }) },
    );
    if (result.outcome.kind === 'error')
      return json(result.outcome.error.status, { error: result.outcome.error });
    return json(200, { output: result.outcome.value ?? null });
  }
}

function partsOf(request: Request): RequestParts {
  return {
    method: request.method,
    header: (name: string) => request.headers.get(name),
    body: () => request.text(),
    signal: request.signal,
  };
}
