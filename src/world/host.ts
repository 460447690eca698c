/**
 * The world side of one test file: this file's world (from the `world` option, the
 * `@understudy-world` pragma or `understudy.world.load`), its HTTP routes, the drill trial in
 * progress, bindings and their expiry, what runs collect, and the one door every tool call goes
 * through (`callTool`). It reads the file it belongs to through one object, `WorldContext` (the
 * file's context, src/run/context.ts); nothing here knows about a test runner.
 */
import type { ErrorCode } from '../errors';
import { headerOf } from '../fetch-input';
import type { WorldDefinition } from './compile';
import type {
  CallMode,
  CallResult,
  EngineHooks,
  EngineSetup,
  InjectedFault,
  InjectionPoint,
  ToolCall,
  WorldEngine,
} from './engine';
import { WorldError } from './errors';
import {
  type Binding,
  createBinding,
  createHandle,
  expireBinding,
  type WorldHandle,
  type WorldResetOptions,
} from './handle';
import type { HttpRequestParts, WorldHttpRouter } from './http';
import type { McpEndpoint, McpHttpEndpoints } from './mcp/http';
import type { InProcessConnection, McpTransport } from './mcp/in-process';
import type { JsonRpcMessage, JsonRpcResponse } from './mcp/protocol';
import type { McpCallContext, McpPackageServer } from './mcp/server';

// The engine, the loader (ajv, js-yaml), the HTTP router and the MCP servers are required when a
// world is first used: every test file that talks to a model creates this host, most never load a world.
const engineModule = (): typeof import('./engine') => require('./engine');
const httpModule = (): typeof import('./http') => require('./http');
const loadModule = (): typeof import('./load') => require('./load');
const mcpServerModule = (): typeof import('./mcp/server') => require('./mcp/server');
const mcpHttpModule = (): typeof import('./mcp/http') => require('./mcp/http');
const mcpInProcessModule = (): typeof import('./mcp/in-process') => require('./mcp/in-process');

import type { CallVia, RunScopeLike, ToolDoor, WorldContext } from './door';
import type { FileChange, OperationRecord, ScenarioDef, Transport } from './types';
import type { FileTree } from './workspace/tree';
import { WorkspaceStore } from './workspace/workspace';

export type { CallVia, RunOperationEntry, RunScopeLike, WorldContext } from './door';

/** The workspace files a run starts from, to tell what it changed (see executeRun). */
export type FileSnapshot = ReadonlyMap<string, FileTree>;

/** `understudy.world`: this file's world. */
export interface FileWorld extends WorldHandle {
  /** Loads a world file (a relative path is relative to process.cwd()) for the rest of this file. */
  load(path: string): FileWorld;
  /** Whether a world is loaded. */
  readonly loaded: boolean;
  /**
   * A connected client-side transport to the MCP server of a package with the mcp binding, for
   * `@modelcontextprotocol/sdk`'s `client.connect(transport)`. Calls go as `actorId` (default:
   * the drill's actor, else the world's default actor), to the running drill trial's world if any.
   */
  mcpTransport(packageId: string, options?: { actorId?: string }): McpTransport;
}

const MISSING =
  'no world is loaded for this test file. Set testEnvironmentOptions.understudy.world in the Jest config, ' +
  'add the docblock pragma `@understudy-world <path>` to the test file, or call understudy.world.load(path).';

export class WorldHost implements ToolDoor {
  private definition: WorldDefinition | undefined;
  private baseline: WorldEngine | undefined;
  private engine: WorldEngine | undefined;
  private router: WorldHttpRouter | undefined;
  private mcpHttp: McpHttpEndpoints | undefined;
  private mcpServers = new Map<string, McpPackageServer>();
  /** The engine HTTP routes serve instead of the file's (a drill trial, a scenario run), and its routes. */
  private drill: { engine: WorldEngine; actorId: string; router?: WorldHttpRouter } | undefined;
  private testBindings: Binding[] = [];
  /** Every workspace folder this file made and has not deleted yet. */
  private readonly workspaces = new WorkspaceStore();
  /** The in-process MCP connections this file made (`mcpTransport`). */
  private readonly connections = new Set<InProcessConnection>();
  readonly handle: FileWorld;

  constructor(
    private readonly context: WorldContext,
    worldFile?: string,
  ) {
    const base = createHandle(
      () => this.current(),
      (actorId) => this.bind(() => this.current(), actorId),
      (options) => this.reset(options),
    );
    const host = this;
    this.handle = Object.defineProperties(base as FileWorld, {
      load: {
        value(path: string) {
          if (typeof path !== 'string' || path === '')
            throw new WorldError('BAD_ARGUMENT', 'understudy.world.load(path): expected a path string');
          host.use(loadModule().loadWorldFile(path));
          return host.handle;
        },
      },
      loaded: { get: () => host.definition !== undefined },
      mcpTransport: {
        value: (packageId: string, options?: { actorId?: string }) => host.mcpTransport(packageId, options),
      },
    });
    if (worldFile) this.use(loadModule().loadWorldFile(worldFile));
  }

  get loaded(): WorldDefinition | undefined {
    return this.definition;
  }

  /** The file world's evidence as it is (for the trace counters; fires nothing). */
  get operations(): OperationRecord[] | undefined {
    return this.engine?.rawOperations as OperationRecord[] | undefined;
  }

  private use(definition: WorldDefinition): void {
    this.definition = definition;
    this.baseline = this.createEngine(definition, {});
    this.engine = this.baseline;
    this.router = new (httpModule().WorldHttpRouter)(definition);
    this.mcpServers = new Map();
    this.mcpHttp = [...definition.packages.values()].some((p) => p.def.bindings.includes('mcp'))
      ? new (mcpHttpModule().McpHttpEndpoints)(definition)
      : undefined;
  }

  private current(): WorldEngine {
    if (!this.engine) throw new WorldError('WORLD_MISSING', `understudy.world: ${MISSING}`);
    return this.engine;
  }

  /** The definition, or the error every world API gives without one. */
  require(where: string): WorldDefinition {
    if (!this.definition) throw new WorldError('WORLD_MISSING', `${where}: ${MISSING}`);
    return this.definition;
  }

  /** What an engine of this file tells it: operations made in runs, sweep faults, world defects. */
  private hooks(onDefect?: (message: string) => void): EngineHooks {
    return {
      onOperation: (record, toolNames, run, startedAt) =>
        this.collect(record, toolNames, run as RunScopeLike, startedAt),
      inject: (call) => this.context.session?.toolCall?.(call),
      onDefect: (message, code) => {
        this.context.fail(code, message);
        onDefect?.(message);
      },
      workspaces: this.workspaces,
    };
  }

  createEngine(
    definition: WorldDefinition,
    setup: EngineSetup,
    onDefect?: (message: string) => void,
  ): WorldEngine {
    return new (engineModule().WorldEngine)(definition, setup, this.hooks(onDefect));
  }

  private collect(
    record: OperationRecord,
    toolNames: readonly string[],
    run: RunScopeLike,
    startedAt: number,
  ): void {
    if (!run.operations) return;
    run.operations.push({
      record,
      afterModelCall: run.calls.length > 0 ? run.calls[run.calls.length - 1].index : -1,
      toolNames,
      startedAt,
      durationMs: performance.now() - startedAt,
    });
    run.crash?.afterOperation(record);
  }

  // ── The door: every tool call, whatever carries it ──────────────────────────
  //
  // mockTool, the HTTP routes, MCP (Streamable HTTP and in-process), the served port and the
  // scenario fakes all come in here, and only here is decided which run a call belongs to (or that
  // it is refused), what the engine answers, how long the answer waits, and that a run that crashed
  // never gets it. One synchronous core (`enter`) serves both entries: `callTool` for callers that
  // can wait, `callToolSync` for mockTool's sync mode, which cannot.

  /**
   * A tool call of a transport that can wait: its answer after its latency (on the runtime clock,
   * ended by `via.signal`); never, when its run has crashed.
   */
  callTool(request: ToolCall, via: CallVia): Promise<CallResult<RunScopeLike>> {
    const result = this.enter(request, via, 'async');
    const answered =
      result.delayMs > 0
        ? this.context.clock.sleep(result.delayMs, via.signal).then(() => result)
        : Promise.resolve(result);
    return this.gate(answered, result.run);
  }

  /**
   * A tool call of a caller that cannot wait (mockTool's sync mode): latency moves the world clock
   * at once instead; a run that crashed gets its CrashError thrown instead of the answer.
   */
  callToolSync(request: ToolCall, via: CallVia): CallResult<RunScopeLike> {
    const result = this.enter(request, via, 'sync');
    const crash = result.run?.crash;
    if (crash?.fired) throw crash.error;
    return result;
  }

  /**
   * An answer that failed before the call reached the world (an expired binding, a caller's own
   * mapping that threw), or of a call served outside the engine (a tool fake): as every answer, it
   * waits `delayMs`, then never comes if the current code's run crashed.
   */
  answer<T>(delayMs: number, settle: () => T): Promise<T> {
    return this.hold(
      delayMs > 0 ? this.context.clock.sleep(delayMs).then(settle) : Promise.resolve().then(settle),
    );
  }

  /** What `work` answers the current code, unless its run has crashed (then it never settles). */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.gate(work, this.context.currentRun());
  }

  /** Fails the current test: a request the world has no answer for (an unknown route or tool). */
  fail(code: ErrorCode, message: string): void {
    this.context.fail(code, message);
  }

  /** For a caller that cannot wait: throws the current code's run's CrashError if it crashed. */
  stopIfCrashed(): void {
    const crash = this.context.currentRun()?.crash;
    if (crash?.fired) throw crash.error;
  }

  /** A sweep's fault for a call served outside the engine (a tool fake), if the sweep injects one. */
  inject(point: InjectionPoint): InjectedFault | undefined {
    return this.context.session?.toolCall?.(point);
  }

  /**
   * A call served outside the engine (a scenario's tool fake), logged in `engine`'s evidence and,
   * when the current code belongs to a run that is not over, in that run's operations.
   */
  logExternal(
    engine: WorldEngine,
    call: Parameters<WorldEngine['logExternal']>[0],
    toolNames: readonly string[],
    startedAt: number,
  ): OperationRecord {
    const claim = this.claim(call.packageId, call.operationId, call.transport);
    return engine.logExternal(call, toolNames, startedAt, claim.run);
  }

  /** The core of both entries: the run named (or the call refused), then the engine's answer. */
  private enter(request: ToolCall, via: CallVia, mode: CallMode): CallResult<RunScopeLike> {
    const engine = via.engine ?? this.runningOrMissing();
    const claim = this.claim(request.packageId, request.operationId, via.transport);
    if (!claim.refused) return engine.call(request, via.transport, mode, claim.run);
    // Not an operation's failure: a failure of the test (see docs/errors.md, runs), answered as the
    // engine's are. It touches no state and leaves no evidence: it belongs to no run or test now.
    const { code, status, message } = claim.refused;
    return { outcome: { kind: 'error', error: { code, message, retryable: false, status } }, delayMs: 0 };
  }

  private claim(packageId: string, operationId: string, transport: Transport) {
    return this.context.claim(
      () => `a world operation (${packageId}/${operationId}, transport: ${transport})`,
    );
  }

  /** The crash gate: a run that crashed never gets the answer. */
  private gate<T>(work: Promise<T>, run: RunScopeLike | undefined): Promise<T> {
    const crash = run?.crash;
    return crash ? crash.hold(work) : work;
  }

  private runningOrMissing(): WorldEngine {
    const engine = this.running();
    if (!engine) throw new WorldError('WORLD_MISSING', `understudy.world: ${MISSING}`);
    return engine;
  }

  /**
   * A binding; it expires with its owner (a drill trial), else with the test that made it
   * (outside tests: with the file).
   */
  bind(
    engine: () => WorldEngine,
    actorId: string | undefined,
    options: { owner?: { name: string; list: Binding[] }; world?: WorldHandle } = {},
  ): Binding {
    const { owner } = options;
    const world = engine();
    const id = actorId ?? world.definition.defaultActor;
    if (typeof id !== 'string' || id === '')
      throw new WorldError('BAD_ARGUMENT', 'world.bind({ actorId }): actorId must be a non-empty string');
    const { test } = this.context;
    const binding = createBinding(id, options.world ?? this.handle, {
      engine,
      door: this,
      owner: owner?.name ?? (test ? `the test "${test}"` : 'the test file'),
    });
    if (owner) owner.list.push(binding);
    else if (test) this.testBindings.push(binding);
    return binding;
  }

  /** A handle on an engine of its own (a drill trial's world). */
  handleFor(engine: WorldEngine, owner?: { name: string; list: Binding[] }): WorldHandle {
    const handle: WorldHandle = createHandle(
      () => engine,
      (actorId) => this.bind(() => engine, actorId, { ...(owner && { owner }), world: handle }),
      (options) => {
        if (options?.scenario !== undefined)
          throw new WorldError(
            'BAD_ARGUMENT',
            "a drill's world.reset() cannot switch scenarios; the drill's build sets it",
          );
        engine.reset(options?.packages);
      },
    );
    return handle;
  }

  private reset(options: WorldResetOptions = {}): void {
    const definition = this.require('understudy.world.reset()');
    if (options.packages !== undefined && options.scenario !== undefined) {
      throw new WorldError(
        'BAD_ARGUMENT',
        'understudy.world.reset(): give either packages or scenario, not both',
      );
    }
    if (options.packages !== undefined) {
      if (!Array.isArray(options.packages) || options.packages.some((p) => typeof p !== 'string'))
        throw new WorldError(
          'BAD_ARGUMENT',
          'understudy.world.reset({ packages }): expected an array of package ids',
        );
      this.current().reset(options.packages);
      return;
    }
    if (options.scenario !== undefined) {
      const setup = loadModule().checkSetupData(definition, { scenario: options.scenario });
      this.engine = this.createEngine(definition, scenarioSetup(definition, setup.scenario!));
      return;
    }
    this.current().reset();
  }

  /** Jest is about to uninstall, replace or reset its fake clock: every live world's clock reads it first. */
  timersChanging(): void {
    for (const engine of new Set([this.baseline, this.engine, this.drill?.engine])) engine?.clock.detach();
  }

  testStarted(): void {
    // Every test starts from the world's initial state (like the model's per-test call log).
    if (this.baseline) {
      this.engine = this.baseline;
      this.baseline.reset();
    }
  }

  testFinished(): void {
    for (const binding of this.testBindings) expireBinding(binding);
    this.testBindings = [];
    // Each test's workspaces are its own (the next test gets fresh ones).
    this.workspaces.disposeAll();
  }

  /**
   * The file is done: the workspace folders made outside tests go too, and an in-process MCP
   * connection still waiting on an answer (a crashed run's) closes, which ends its client's wait.
   */
  async fileFinished(): Promise<void> {
    this.workspaces.disposeAll();
    for (const connection of this.connections) await connection.closeIfWaiting();
    this.connections.clear();
  }

  // ── Workspaces ──────────────────────────────────────────────────────────────

  /** The running world's engine (a drill trial's while one runs), if a world is loaded. */
  private running(): WorldEngine | undefined {
    return this.drill?.engine ?? this.engine;
  }

  /** What the workspaces the running world made hold now; undefined when it declares none. */
  fileSnapshot(): FileSnapshot | undefined {
    const engine = this.running();
    if (!engine || ![...engine.definition.packages.values()].some((p) => p.tree)) return undefined;
    return new Map(engine.liveWorkspaces().map((w) => [w.packageId, w.snapshot()]));
  }

  /** The files the running world's workspaces changed since `snapshot` (a workspace made since: since its tree). */
  fileChanges(snapshot: FileSnapshot): FileChange[] {
    const engine = this.running();
    if (!engine) return [];
    return engine.liveWorkspaces().flatMap((w) => w.changes(snapshot.get(w.packageId) ?? w.initial));
  }

  // ── Drills ──────────────────────────────────────────────────────────────────

  beginDrill(engine: WorldEngine, actorId: string): void {
    if (this.drill) {
      throw new WorldError(
        'DRILL_OVERLAP',
        'runDrills: another drill (or scenario run) is running in this test file. Drills replace module mocks and route HTTP to their own world, so they must not overlap: await each runDrills and executeAgent before the next (and do not run them in concurrent tests).',
      );
    }
    // An engine of another world (a scenario's own file) is served at that world's base URLs.
    const router =
      engine.definition === this.definition
        ? undefined
        : new (httpModule().WorldHttpRouter)(engine.definition);
    this.drill = { engine, actorId, ...(router && { router }) };
  }

  endDrill(): void {
    this.drill = undefined;
  }

  // ── HTTP ────────────────────────────────────────────────────────────────────

  /** Whether a package of the loaded world has its HTTP base URL or its MCP endpoint at this origin. */
  serves(origin: string): boolean {
    return (
      ((this.drill?.router ?? this.router)?.serves(origin) ?? false) ||
      (this.mcpHttp?.serves(origin) ?? false)
    );
  }

  private serve(
    url: string,
    parts: () => {
      method: string;
      header(name: string): string | null;
      body(): Promise<string>;
      signal?: AbortSignal;
    },
  ): Promise<Response> | undefined {
    const endpoint = this.mcpHttp?.at(url);
    if (endpoint) return this.serveMcp(endpoint, { url, ...parts() });
    const router = this.drill?.router ?? this.router;
    if (!router || router.empty) return undefined;
    const base = router.baseOf(url);
    if (!base) return undefined;
    const engine = this.drill?.engine ?? this.engine!;
    const actor = this.drill?.actorId ?? engine.definition.defaultActor;
    return router.serve(this, engine, base, { url, ...parts() }, actor);
  }

  // ── MCP ─────────────────────────────────────────────────────────────────────

  private mcpServer(packageId: string): McpPackageServer {
    let server = this.mcpServers.get(packageId);
    if (!server) {
      server = new (mcpServerModule().McpPackageServer)(this.definition!, packageId);
      this.mcpServers.set(packageId, server);
    }
    return server;
  }

  /** A call's context: the drill trial's world while one runs, else the file's. */
  private mcpContext(actorId: string | undefined, signal?: AbortSignal): McpCallContext {
    const engine = this.drill?.engine ?? this.engine!;
    return {
      door: this,
      engine,
      actorId: actorId ?? this.drill?.actorId ?? engine.definition.defaultActor,
      ...(signal && { signal }),
    };
  }

  private serveMcp(endpoint: McpEndpoint, request: HttpRequestParts): Promise<Response> {
    return this.mcpHttp!.serve(endpoint, request, {
      server: this.mcpServer(endpoint.packageId),
      context: (actorId, signal) => this.mcpContext(actorId, signal),
      actorHeader: httpModule().ACTOR_HEADER,
    });
  }

  /**
   * One message to a package's MCP server, in-process (a transport, later a served port or
   * stdio): the package as the world loaded now has it.
   */
  mcpMessage(
    packageId: string,
    message: JsonRpcMessage,
    actorId?: string,
  ): Promise<JsonRpcResponse> | undefined {
    const pkg = this.definition?.packages.get(packageId);
    if (!pkg?.def.bindings.includes('mcp'))
      throw new WorldError(
        'UNKNOWN_PACKAGE',
        `the world loaded now has no package ${JSON.stringify(packageId)} with the mcp binding`,
      );
    return this.mcpServer(packageId).handle(message, () => this.mcpContext(actorId));
  }

  private mcpTransport(packageId: unknown, options: { actorId?: unknown } = {}): McpTransport {
    const where = 'understudy.world.mcpTransport(packageId)';
    if (typeof packageId !== 'string' || packageId === '')
      throw new WorldError('BAD_ARGUMENT', `${where}: expected a package id string`);
    if (options === null || typeof options !== 'object')
      throw new WorldError('BAD_ARGUMENT', `${where}: options must be an object ({ actorId? })`);
    const { actorId } = options;
    if (actorId !== undefined && (typeof actorId !== 'string' || actorId === ''))
      throw new WorldError('BAD_ARGUMENT', `${where}: options.actorId must be a non-empty string`);
    const definition = this.require(where);
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
      handle: (message) => this.mcpMessage(packageId, message, actorId as string | undefined),
    });
    this.connections.add(connection);
    return connection;
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

  // ── Served (another process reaches the world over the served port) ─────────

  /** The packages the served port offers: HTTP routes (a base URL) and MCP endpoints (the mcp binding). */
  servedPackages(): { http: string[]; mcp: string[] } {
    const http: string[] = [];
    const mcp: string[] = [];
    for (const [id, pkg] of this.definition?.packages ?? []) {
      if (pkg.def.bindings.includes('http') && pkg.def.http) http.push(id);
      if (pkg.def.bindings.includes('mcp')) mcp.push(id);
    }
    return { http, mcp };
  }

  /** A request below a package's served HTTP base: answered as at its `http.baseURL` + `rest`. */
  servedHttp(packageId: string, rest: string, request: Request): Promise<Response> | undefined {
    const baseURL = this.definition?.packages.get(packageId)?.def.http?.baseURL;
    if (!baseURL || !this.definition?.packages.get(packageId)?.def.bindings.includes('http'))
      return undefined;
    return this.serve(`${baseURL.replace(/\/+$/, '')}${rest}`, () => partsOf(request));
  }

  /** A request to a package's served MCP endpoint (with or without an `mcp.url`). */
  servedMcp(packageId: string, request: Request): Promise<Response> | undefined {
    const endpoint = this.mcpHttp?.ofPackage(packageId);
    if (!endpoint) return undefined;
    return this.serveMcp(endpoint, { url: request.url, ...partsOf(request) });
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
    const engine = this.drill?.engine ?? this.engine;
    const json = (status: number, value: unknown) =>
      new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
    if (!engine) {
      const message = `a tool call to ${packageId}/${operationId} arrived over the served port, but ${MISSING}`;
      this.context.fail('WORLD_MISSING', message);
      return json(404, { error: { code: 'WORLD_MISSING', message, retryable: false, status: 404 } });
    }
    try {
      engine.operation(packageId, operationId);
    } catch (error) {
      const { code, message } = error as WorldError;
      this.context.fail(code, `understudy tool call ${packageId}/${operationId}: ${message}`);
      return json(404, { error: { code, message, retryable: false, status: 404 } });
    }
    const result = await this.callTool(
      {
        packageId,
        operationId,
        input: body.input ?? {},
        actorId: body.actorId ?? this.drill?.actorId ?? engine.definition.defaultActor,
        ...(body.idempotencyKey !== undefined && { idempotencyKey: body.idempotencyKey }),
      },
      { transport: 'cli', engine, ...(signal && { signal }) },
    );
    if (result.outcome.kind === 'error')
      return json(result.outcome.error.status, { error: result.outcome.error });
    return json(200, { output: result.outcome.value ?? null });
  }
}

function partsOf(request: Request) {
  return {
    method: request.method,
    header: (name: string) => request.headers.get(name),
    body: () => request.text(),
    signal: request.signal,
  };
}

/** An engine setup for a scenario: a named one in the scenario scope; an inline one's rules per-test. */
export function scenarioSetup(definition: WorldDefinition, scenario: string | ScenarioDef): EngineSetup {
  if (typeof scenario === 'string') {
    return { scenario: definition.source.scenarios![scenario], scenarioScope: 'scenario' };
  }
  const { toolOverrides, ...rest } = scenario;
  return { scenario: rest, testRules: toolOverrides ?? [] };
}
