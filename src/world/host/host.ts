/**
 * The world side of one test file: this file's world (from the `world` option, the
 * `@understudy-world` pragma or `understudy.world.load`), the drill trial in progress, bindings
 * and their expiry, and what runs collect. It is the one door every tool call goes through
 * (`callTool`, ./door.ts); what it serves (HTTP routes, MCP servers, the served port) is in
 * ./served.ts and ./mcp.ts. It reads the file it belongs to through one object, `WorldContext`
 * (the file's context, src/run/context.ts); nothing here knows about a test runner.
 */
import type { RunScopeLike, WorldContext } from '../door';
import type { EngineHooks, EngineSetup, WorldEngine } from '../engine/engine';
import { WorldError } from '../errors';
import {
  type Binding,
  createBinding,
  createHandle,
  expireBinding,
  type WorldHandle,
  type WorldResetOptions,
} from '../handle';
import type { JsonRpcMessage, JsonRpcResponse } from '../mcp/protocol';
import type { WorldDefinition } from '../model';
import type { WorldHttpRouter } from '../transports/http';
import type { FileChange, OperationRecord } from '../types';
import { WorkspaceStore } from '../workspace/workspace';
import { type FileSnapshot, type FileWorld, type HostView, MISSING, type ServingTarget } from './contract';
import { WorldDoor } from './door';
import { HostMcp } from './mcp';
import { scenarioSetup } from './scenario-setup';
import { HostServing } from './served';

// The engine, the loader (ajv, js-yaml) and the HTTP router are required when a world is first
// used: every test file that talks to a model creates this host, most never load a world.
const engineModule = (): typeof import('../engine/engine') => require('../engine/engine');
const httpModule = (): typeof import('../transports/http') => require('../transports/http');
const loadModule = (): typeof import('../load') => require('../load');

export type { CallVia, RunOperationEntry, RunScopeLike, WorldContext } from '../door';

export class WorldHost extends WorldDoor implements HostView {
  private loadedDefinition: WorldDefinition | undefined;
  private baseline: WorldEngine | undefined;
  private engine: WorldEngine | undefined;
  private router: WorldHttpRouter | undefined;
  private readonly mcp = new HostMcp(this);
  private readonly serving = new HostServing(this, this.mcp);
  /** The engine HTTP routes serve instead of the file's (a drill trial, a scenario run), and its routes. */
  private drill: { engine: WorldEngine; actorId: string; router?: WorldHttpRouter } | undefined;
  private testBindings: Binding[] = [];
  /** Every workspace folder this file made and has not deleted yet. */
  private readonly workspaces = new WorkspaceStore();
  readonly handle: FileWorld;

  constructor(context: WorldContext, worldFile?: string) {
    super(context);
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
      loaded: { get: () => host.loadedDefinition !== undefined },
      mcpTransport: {
        value: (packageId: string, options?: { actorId?: string }) => host.mcp.transport(packageId, options),
      },
    });
    if (worldFile) this.use(loadModule().loadWorldFile(worldFile));
  }

  get loaded(): WorldDefinition | undefined {
    return this.loadedDefinition;
  }

  /** The file world's evidence as it is (for the trace counters; fires nothing). */
  get operations(): OperationRecord[] | undefined {
    return this.engine?.rawOperations as OperationRecord[] | undefined;
  }

  private use(definition: WorldDefinition): void {
    this.loadedDefinition = definition;
    this.baseline = this.createEngine(definition, {});
    this.engine = this.baseline;
    this.router = new (httpModule().WorldHttpRouter)(definition);
    this.mcp.use(definition);
  }

  private current(): WorldEngine {
    if (!this.engine) throw new WorldError('WORLD_MISSING', `understudy.world: ${MISSING}`);
    return this.engine;
  }

  /** The definition, or the error every world API gives without one. */
  require(where: string): WorldDefinition {
    if (!this.loadedDefinition) throw new WorldError('WORLD_MISSING', `${where}: ${MISSING}`);
    return this.loadedDefinition;
  }

  definition(): WorldDefinition | undefined {
    return this.loadedDefinition;
  }

  target(): ServingTarget {
    return {
      engine: this.drill?.engine ?? this.engine,
      actorId: this.drill?.actorId,
      router: this.drill?.router ?? this.router,
    };
  }

  /** What an engine of this file tells it: operations made in runs, sweep faults, world defects. */
  private hooks(onDefect?: (message: string) => void): EngineHooks {
    return {
      onOperation: (record, toolNames, run, startedAt) =>
        this.collect(record, toolNames, run as RunScopeLike, startedAt),
      inject: (call) => this.inject(call),
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
      const setup = loadModule().checkSetupData(
        definition,
        { scenario: options.scenario },
        'understudy.world.reset({ scenario })',
      );
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
    await this.mcp.closeWaiting();
  }

  // ── Workspaces ──────────────────────────────────────────────────────────────

  /** The running world's engine (a drill trial's while one runs), if a world is loaded. */
  protected running(): WorldEngine | undefined {
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
      engine.definition === this.loadedDefinition
        ? undefined
        : new (httpModule().WorldHttpRouter)(engine.definition);
    this.drill = { engine, actorId, ...(router && { router }) };
  }

  endDrill(): void {
    this.drill = undefined;
  }

  // ── Served: HTTP routes, MCP servers, the served port (./served.ts, ./mcp.ts) ─

  serves(origin: string): boolean {
    return this.serving.serves(origin);
  }

  handleFetch(...args: Parameters<HostServing['handleFetch']>) {
    return this.serving.handleFetch(...args);
  }

  handleRequest(request: Request, url = request.url): Promise<Response> | undefined {
    return this.serving.handleRequest(request, url);
  }

  servedPackages(): { http: string[]; mcp: string[] } {
    return this.serving.servedPackages();
  }

  servedHttp(packageId: string, rest: string, request: Request): Promise<Response> | undefined {
    return this.serving.servedHttp(packageId, rest, request);
  }

  servedMcp(packageId: string, request: Request): Promise<Response> | undefined {
    return this.serving.servedMcp(packageId, request);
  }

  servedCall(...args: Parameters<HostServing['servedCall']>): Promise<Response> {
    return this.serving.servedCall(...args);
  }

  /** One message to a package's MCP server (see HostMcp.message). */
  mcpMessage(
    packageId: string,
    message: JsonRpcMessage,
    actorId?: string,
  ): Promise<JsonRpcResponse> | undefined {
    return this.mcp.message(packageId, message, actorId);
  }
}
