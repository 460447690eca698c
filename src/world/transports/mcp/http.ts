/**
 * The Streamable HTTP transport of MCP (protocol 2025-03-26 and later) at each `mcp.url`: a
 * POST carries one message (or a batch), answered with 202 when it holds no request, else with
 * one SSE stream or one JSON body (`mcp.response`); the session starts with `initialize`
 * (`Mcp-Session-Id`) and ends with DELETE; GET answers 405 (the server sends nothing
 * unprompted). What it refuses, it refuses as `@modelcontextprotocol/sdk`'s server does
 * (406, 415, 400, 404, with a JSON-RPC error body), so a client meets the errors it would meet
 * in production.
 */
import { randomUUID } from 'node:crypto';
import {
  internalError,
  isRequest,
  type JsonRpcMessage,
  type JsonRpcResponse,
  negotiate,
  parseMessage,
  RPC,
  rpcError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../mcp/protocol';
import type { WorldDefinition } from '../../model';
import type { HttpRequestParts } from '../http';
import type { McpCallContext, McpPackageServer } from './server';

export interface McpEndpoint {
  /** The endpoint URL without query, fragment or trailing slash ('' when it has none: served only). */
  href: string;
  origin: string;
  packageId: string;
  response: 'sse' | 'json';
  /** Live sessions: id → the protocol version initialize negotiated. */
  sessions: Map<string, string>;
}

export interface McpHttpDeps {
  server: McpPackageServer;
  /** The context of a call; `actorId` from the request's actor header, when it has one. */
  context(actorId: string | undefined, signal: AbortSignal | undefined): McpCallContext;
  actorHeader: string;
}

const SESSION_HEADER = 'mcp-session-id';
const VERSION_HEADER = 'mcp-protocol-version';

function withoutQuery(url: string): string {
  let end = url.length;
  const query = url.indexOf('?');
  const hash = url.indexOf('#');
  if (query !== -1) end = query;
  if (hash !== -1 && hash < end) end = hash;
  while (end > 0 && url.charCodeAt(end - 1) === 47 /* / */) end--;
  return url.slice(0, end);
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A refusal of the transport: an HTTP status with a JSON-RPC error that answers no request. */
function refuse(status: number, code: number, message: string, headers?: Record<string, string>): Response {
  return jsonResponse(status, rpcError(null, code, message), headers);
}

function sse(responses: readonly JsonRpcResponse[], headers: Record<string, string>): Response {
  let body = '';
  for (const response of responses) body += `event: message\ndata: ${JSON.stringify(response)}\n\n`;
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers },
  });
}

export class McpHttpEndpoints {
  private readonly byHref = new Map<string, McpEndpoint>();
  private readonly origins = new Set<string>();
  /** Every package with the mcp binding; those with an `mcp.url` are also reachable there. */
  private readonly byPackage = new Map<string, McpEndpoint>();

  constructor(definition: WorldDefinition) {
    for (const [packageId, pkg] of definition.packages) {
      if (!pkg.def.bindings.includes('mcp')) continue;
      const url = pkg.def.mcp?.url;
      const parsed = url ? new URL(url) : undefined;
      const href = parsed ? withoutQuery(`${parsed.origin}${parsed.pathname}`) : '';
      const endpoint: McpEndpoint = {
        href,
        origin: parsed?.origin ?? '',
        packageId,
        response: pkg.def.mcp?.response ?? 'sse',
        sessions: new Map(),
      };
      this.byPackage.set(packageId, endpoint);
      if (!parsed) continue;
      this.byHref.set(href, endpoint);
      this.origins.add(parsed.origin);
    }
  }

  /** The endpoint of a package with the mcp binding (the served port's), sessions shared with its `mcp.url`. */
  ofPackage(packageId: string): McpEndpoint | undefined {
    return this.byPackage.get(packageId);
  }

  serves(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** The endpoint a request URL addresses (its query aside), if any. */
  at(url: string): McpEndpoint | undefined {
    return this.byHref.size === 0 ? undefined : this.byHref.get(withoutQuery(url));
  }

  serve(endpoint: McpEndpoint, request: HttpRequestParts, deps: McpHttpDeps): Promise<Response> {
    switch (request.method.toUpperCase()) {
      case 'POST':
        return this.post(endpoint, request, deps);
      case 'DELETE':
        return Promise.resolve(this.delete(endpoint, request));
      default:
        // GET included: the server never sends anything unprompted, so it offers no stream there.
        return Promise.resolve(
          refuse(
            405,
            RPC.TRANSPORT,
            'Method not allowed: this MCP server takes POST (and DELETE to end a session).',
            {
              allow: 'POST, DELETE',
            },
          ),
        );
    }
  }

  /** Why a request of a session is refused: a missing or unknown session, an unsupported version. */
  private sessionProblem(endpoint: McpEndpoint, request: HttpRequestParts): Response | undefined {
    const session = request.header(SESSION_HEADER);
    if (!session) return refuse(400, RPC.TRANSPORT, 'Bad Request: Mcp-Session-Id header is required');
    if (!endpoint.sessions.has(session)) return refuse(404, RPC.SESSION_NOT_FOUND, 'Session not found');
    const version = request.header(VERSION_HEADER);
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return refuse(
        400,
        RPC.TRANSPORT,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    return undefined;
  }

  private delete(endpoint: McpEndpoint, request: HttpRequestParts): Response {
    const problem = this.sessionProblem(endpoint, request);
    if (problem) return problem;
    endpoint.sessions.delete(request.header(SESSION_HEADER)!);
    return new Response(null, { status: 200 });
  }

  private async post(endpoint: McpEndpoint, request: HttpRequestParts, deps: McpHttpDeps): Promise<Response> {
    const accept = request.header('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
      return refuse(
        406,
        RPC.TRANSPORT,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    if (!/^application\/json\s*(;|$)/i.test(request.header('content-type') ?? ''))
      return refuse(415, RPC.TRANSPORT, 'Unsupported Media Type: Content-Type must be application/json');
    let raw: unknown;
    try {
      raw = JSON.parse(await request.body());
    } catch {
      return refuse(400, RPC.PARSE_ERROR, 'Parse error: Invalid JSON');
    }
    const list = Array.isArray(raw) ? raw : [raw];
    const messages: JsonRpcMessage[] = [];
    for (const item of list) {
      const message = parseMessage(item);
      if (!message) return refuse(400, RPC.PARSE_ERROR, 'Parse error: Invalid JSON-RPC message');
      messages.push(message);
    }
    if (messages.length === 0) return refuse(400, RPC.INVALID_REQUEST, 'Invalid Request: an empty batch');

    const headers: Record<string, string> = {};
    const initialize = messages.find((m) => isRequest(m) && m.method === 'initialize');
    if (initialize) {
      if (messages.length > 1)
        return refuse(
          400,
          RPC.INVALID_REQUEST,
          'Invalid Request: Only one initialization request is allowed',
        );
      const requested = (initialize as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
      const session = randomUUID();
      endpoint.sessions.set(session, negotiate(typeof requested === 'string' ? requested : ''));
      headers[SESSION_HEADER] = session;
    } else {
      const problem = this.sessionProblem(endpoint, request);
      if (problem) return problem;
      headers[SESSION_HEADER] = request.header(SESSION_HEADER)!;
    }

    const actorId = request.header(deps.actorHeader) ?? undefined;
    let context: McpCallContext | undefined;
    const contextOf = () => {
      context ??= deps.context(actorId, request.signal);
      return context;
    };
    const pending: Array<Promise<JsonRpcResponse>> = [];
    for (const message of messages) {
      const answer = deps.server.handle(message, contextOf);
      if (answer) pending.push(answer.catch((error) => internalError(message, error)));
    }
    if (pending.length === 0) return new Response(null, { status: 202, headers });
    const responses = await Promise.all(pending);
    if (endpoint.response === 'sse') return sse(responses, headers);
    return jsonResponse(200, Array.isArray(raw) ? responses : responses[0], headers);
  }
}
