/**
 * The file world's MCP servers: one per package with the mcp binding, made when first used,
 * reached at their Streamable HTTP endpoints, in-process (`understudy.world.mcpTransport`) or
 * one message at a time (the served port, the CLI's stdio bridge).
 */
import { WorldError } from '../errors';
import type { JsonRpcMessage, JsonRpcResponse } from '../mcp/protocol';
import type { WorldDefinition } from '../model';
import type { HttpRequestParts } from '../transports/http';
import type { McpEndpoint, McpHttpEndpoints } from '../transports/mcp/http';
import type { InProcessConnection, McpTransport } from '../transports/mcp/in-process';
import type { McpCallContext, McpPackageServer } from '../transports/mcp/server';
import type { HostView } from './contract';

// Required when a world with an MCP package is first used (most test files never load one).
const httpModule = (): typeof import('../transports/http') => require('../transports/http');
const mcpServerModule = (): typeof import('../transports/mcp/server') => require('../transports/mcp/server');
const mcpHttpModule = (): typeof import('../transports/mcp/http') => require('../transports/mcp/http');
const mcpInProcessModule = (): typeof import('../transports/mcp/in-process') =>
  require('../transports/mcp/in-process');

export class HostMcp {
  private endpoints: McpHttpEndpoints | undefined;
  private servers = new Map<string, McpPackageServer>();
  /** The in-process connections this file made (`mcpTransport`). */
  private readonly connections = new Set<InProcessConnection>();

  constructor(private readonly host: HostView) {}

  /** A world was loaded: its servers start afresh. */
  use(definition: WorldDefinition): void {
    this.servers = new Map();
    this.endpoints = [...definition.packages.values()].some((p) => p.def.bindings.includes('mcp'))
      ? new (mcpHttpModule().McpHttpEndpoints)(definition)
      : undefined;
  }

  serves(origin: string): boolean {
    return this.endpoints?.serves(origin) ?? false;
  }

  /** The endpoint at `url`, if a package's MCP server is there. */
  at(url: string): McpEndpoint | undefined {
    return this.endpoints?.at(url);
  }

  /** The endpoint of a package (with or without an `mcp.url`), for the served port. */
  ofPackage(packageId: string): McpEndpoint | undefined {
    return this.endpoints?.ofPackage(packageId);
  }

  serve(endpoint: McpEndpoint, request: HttpRequestParts): Promise<Response> {
    return this.endpoints!.serve(endpoint, request, {
      server: this.server(endpoint.packageId),
      context: (actorId, signal) => this.context(actorId, signal),
      actorHeader: httpModule().ACTOR_HEADER,
    });
  }

  private server(packageId: string): McpPackageServer {
    let server = this.servers.get(packageId);
    if (!server) {
      server = new (mcpServerModule().McpPackageServer)(this.host.definition()!, packageId);
      this.servers.set(packageId, server);
    }
    return server;
  }

  /** A call's context: the drill trial's world while one runs, else the file's. */
  private context(actorId: string | undefined, signal?: AbortSignal): McpCallContext {
    const target = this.host.target();
    const engine = target.engine!;
    return {
      door: this.host,
      engine,
      actorId: actorId ?? target.actorId ?? engine.definition.defaultActor,
      ...(signal && { signal }),
    };
  }

  /**
   * One message to a package's MCP server, in-process (a transport, the served port or stdio):
   * the package as the world loaded now has it.
   */
  message(
    packageId: string,
    message: JsonRpcMessage,
    actorId?: string,
  ): Promise<JsonRpcResponse> | undefined {
    const pkg = this.host.definition()?.packages.get(packageId);
    if (!pkg?.def.bindings.includes('mcp'))
      throw new WorldError(
        'UNKNOWN_PACKAGE',
        `the world loaded now has no package ${JSON.stringify(packageId)} with the mcp binding`,
      );
    return this.server(packageId).handle(message, () => this.context(actorId));
  }

  /** `understudy.world.mcpTransport(packageId, { actorId })`, its arguments checked. */
  transport(packageId: unknown, options: { actorId?: unknown } = {}): McpTransport {
    const where = 'understudy.world.mcpTransport(packageId)';
    if (typeof packageId !== 'string' || packageId === '')
      throw new WorldError('BAD_ARGUMENT', `${where}: expected a package id string`);
    if (options === null || typeof options !== 'object')
      throw new WorldError('BAD_ARGUMENT', `${where}: options must be an object ({ actorId? })`);
    const { actorId } = options;
    if (actorId !== undefined && (typeof actorId !== 'string' || actorId === ''))
      throw new WorldError('BAD_ARGUMENT', `${where}: options.actorId must be a non-empty string`);
    const definition = this.host.require(where);
    const pkg = definition.packages.get(packageId);
    if (!pkg) {
      const ids = [...definition.packages.keys()];
      throw new WorldError(
        'UNKNOWN_PACKAGE',
        `${where}: world ${JSON.stringify(definition.name)} has no package ${JSON.stringify(packageId)} (it has ${ids.map((id) => JSON.stringify(id)).join(', ')})`,
      );
    }
    if (!pkg.def.bindings.includes('mcp'))
      throw new WorldError(
        'BINDING_UNSUPPORTED',
        `${where}: package ${JSON.stringify(packageId)} has bindings [${pkg.def.bindings.join(', ')}], not "mcp": add "mcp" to its bindings to serve it as an MCP server`,
      );
    const connection = mcpInProcessModule().createInProcessTransport({
      label: `the MCP server of package ${JSON.stringify(packageId)}`,
      handle: (message) => this.message(packageId, message, actorId as string | undefined),
    });
    this.connections.add(connection);
    return connection;
  }

  /**
   * The file is done: an in-process connection still waiting on an answer (a crashed run's never
   * comes) closes, as a server going away would, which ends its client's wait.
   */
  async closeWaiting(): Promise<void> {
    for (const connection of this.connections) await connection.closeIfWaiting();
    this.connections.clear();
  }
}
