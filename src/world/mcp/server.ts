/**
 * A world package as an MCP server, whatever carries its messages (Streamable HTTP, the
 * in-process transport, the served port, stdio through it): one JSON-RPC message in, its response
 * out. Its tools are the package's operations, and `tools/call` is one call through the world's
 * door (`WorldHost.callTool`), so permissions, input validation, budgets, idempotency, tool
 * overrides, faults, behavior, evidence and a crashed run's silence are those of every other
 * transport. Its state collections are read-only resources.
 */
import type { WorldDefinition } from '../compile';
import type { ToolDoor } from '../door';
import type { WorldEngine } from '../engine';
import type { OperationOutcome } from '../types';
import {
  type JsonRpcMessage,
  type JsonRpcResponse,
  negotiate,
  type Params,
  type RequestId,
  RPC,
  result,
  rpcError,
} from './protocol';
import { type McpTool, toolOf } from './schema';

/** What one message is handled with: the door its calls go through, which world they reach, as whom. */
export interface McpCallContext {
  door: ToolDoor;
  /** The engine the call reaches now: the file's world, or the running drill trial's. */
  engine: WorldEngine;
  actorId: string;
  /** Aborted when the client goes away (Streamable HTTP): the latency wait ends with it. */
  signal?: AbortSignal;
}

const RESOURCE_SCHEME = 'understudy:';
const JSON_TYPE = 'application/json';

interface ServedTool {
  tool: McpTool;
  operationId: string;
}

export class McpPackageServer {
  readonly tools: readonly McpTool[];
  private readonly byName = new Map<string, ServedTool>();
  private readonly serverInfo: { name: string; version: string };
  private readonly idempotencyKey: string | undefined;
  private readonly resourcePrefix: string;

  constructor(
    definition: WorldDefinition,
    readonly packageId: string,
  ) {
    const pkg = definition.packages.get(packageId)!;
    this.idempotencyKey = pkg.def.mcp?.idempotencyKey;
    const options = { definitions: definition.source.definitions, idempotencyKey: this.idempotencyKey };
    for (const op of pkg.operations.values()) {
      const tool = toolOf(op.def, options);
      this.byName.set(tool.name, { tool, operationId: op.operationId });
    }
    this.tools = [...this.byName.values()].map((served) => served.tool);
    // The world's hash names the version: a changed world file is a changed server.
    this.serverInfo = { name: packageId, version: definition.hash.replace(/^sha256:/, '').slice(0, 12) };
    this.resourcePrefix = `${RESOURCE_SCHEME}//${encodeURIComponent(packageId)}/`;
  }

  /** The response to a request; undefined for a notification or a response (nothing to answer). */
  handle(message: JsonRpcMessage, context: () => McpCallContext): Promise<JsonRpcResponse> | undefined {
    if (!('method' in message) || !('id' in message)) return undefined;
    const { id, method } = message;
    const params = message.params ?? {};
    switch (method) {
      case 'initialize':
        return Promise.resolve(this.initialize(id, params));
      case 'ping':
        return Promise.resolve(result(id, {}));
      case 'tools/list':
        return Promise.resolve(result(id, { tools: this.tools }));
      case 'tools/call':
        return this.call(id, params, context());
      case 'resources/list':
        return Promise.resolve(this.listResources(id, context().engine));
      case 'resources/templates/list':
        return Promise.resolve(result(id, { resourceTemplates: [] }));
      case 'resources/read':
        return Promise.resolve(this.readResource(id, params, context().engine));
      default:
        return Promise.resolve(rpcError(id, RPC.METHOD_NOT_FOUND, `Method not found: ${method}`));
    }
  }

  private initialize(id: RequestId, params: Params): JsonRpcResponse {
    if (typeof params.protocolVersion !== 'string')
      return rpcError(id, RPC.INVALID_PARAMS, 'initialize: params.protocolVersion must be a string');
    return result(id, {
      protocolVersion: negotiate(params.protocolVersion),
      capabilities: { tools: {}, resources: {} },
      serverInfo: this.serverInfo,
    });
  }

  private async call(id: RequestId, params: Params, context: McpCallContext): Promise<JsonRpcResponse> {
    const { name, arguments: args = {} } = params;
    if (typeof name !== 'string')
      return rpcError(id, RPC.INVALID_PARAMS, 'tools/call: params.name must be a string');
    const served = this.byName.get(name);
    if (!served) {
      const tools = this.tools.map((tool) => tool.name);
      context.door.fail(
        'UNKNOWN_OPERATION',
        `tools/call ${JSON.stringify(name)}: the MCP server of package ${JSON.stringify(this.packageId)} has no such tool.\n` +
          `  Its tools: ${tools.length > 0 ? tools.join(', ') : 'none'}.`,
      );
      return rpcError(id, RPC.INVALID_PARAMS, `Unknown tool: ${name}`);
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args))
      return rpcError(id, RPC.INVALID_PARAMS, 'tools/call: params.arguments must be an object');
    const input: Record<string, unknown> = { ...(args as Record<string, unknown>) };
    let key: string | undefined;
    if (this.idempotencyKey !== undefined && Object.hasOwn(input, this.idempotencyKey)) {
      const value = input[this.idempotencyKey];
      delete input[this.idempotencyKey];
      if (typeof value !== 'string' || value === '') {
        return result(
          id,
          toolResult(served.tool, {
            kind: 'error',
            error: {
              code: 'INVALID_INPUT',
              message: `the idempotency key argument ${JSON.stringify(this.idempotencyKey)} must be a non-empty string`,
              retryable: false,
              status: 400,
            },
          }),
        );
      }
      key = value;
    }
    const call = await context.door.callTool(
      {
        packageId: this.packageId,
        operationId: served.operationId,
        input,
        actorId: context.actorId,
        ...(key !== undefined && { idempotencyKey: key }),
      },
      {
        transport: 'mcp',
        engine: context.engine,
        ...(context.signal && { signal: context.signal }),
      },
    );
    return result(id, toolResult(served.tool, call.outcome));
  }

  private collections(engine: WorldEngine): Record<string, Record<string, unknown>> {
    return engine.snapshot()[this.packageId] ?? {};
  }

  private listResources(id: RequestId, engine: WorldEngine): JsonRpcResponse {
    const resources = Object.keys(this.collections(engine)).map((collection) => ({
      uri: `${this.resourcePrefix}${encodeURIComponent(collection)}`,
      name: collection,
      description: `The ${JSON.stringify(collection)} collection of ${this.packageId}: key → record (read-only).`,
      mimeType: JSON_TYPE,
    }));
    return result(id, { resources });
  }

  private readResource(id: RequestId, params: Params, engine: WorldEngine): JsonRpcResponse {
    const { uri } = params;
    if (typeof uri !== 'string')
      return rpcError(id, RPC.INVALID_PARAMS, 'resources/read: params.uri must be a string');
    const collections = this.collections(engine);
    const name = uri.startsWith(this.resourcePrefix)
      ? safeDecode(uri.slice(this.resourcePrefix.length))
      : undefined;
    if (name === undefined || !Object.hasOwn(collections, name))
      return rpcError(id, RPC.RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return result(id, { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(collections[name]) }] });
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * A tool result. A success is its value as text (JSON unless a string), and as
 * `structuredContent` when the tool has an output schema; a failure is `isError` with the
 * envelope as JSON text, and as `structuredContent` when the tool has no output schema:
 * `@modelcontextprotocol/sdk` 1.x clients check the structured content of error results
 * against the output schema too, and throw instead of returning the error.
 */
export function toolResult(tool: McpTool, outcome: OperationOutcome): Params {
  if (outcome.kind === 'error') {
    const envelope = outcome.error;
    return {
      content: [{ type: 'text', text: JSON.stringify(envelope) }],
      isError: true,
      ...(tool.outputSchema === undefined && { structuredContent: envelope }),
    };
  }
  const value = outcome.value;
  const content =
    value === undefined || value === null
      ? []
      : [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
  return tool.outputSchema === undefined ? { content } : { content, structuredContent: value };
}
