/**
 * The world side of the per-file runtime: this file's world (from the `world` option, the
 * `@understudy-world` pragma or `understudy.world.load`), its HTTP routes, the drill
 * trial in progress, bindings and their expiry, and what runs collect. The runtime owns
 * one; nothing here knows about Jest beyond what the runtime hands it.
 */
import type { ErrorCode } from '../errors';
import { headerOf } from '../fetch-input';
import type { WorldDefinition } from './compile';
import type { EngineHooks, EngineSetup, WorldEngine } from './engine';
import { WorldError } from './errors';
import {
  type Binding,
  createBinding,
  createHandle,
  expireBinding,
  type WorldHandle,
  type WorldResetOptions,
} from './handle';
import type { WorldHttpRouter } from './http';

// The engine, the loader (ajv, js-yaml) and the HTTP router are required when a world is first
// used: every test file that talks to a model creates this host, most never load a world.
const engineModule = (): typeof import('./engine') => require('./engine');
const httpModule = (): typeof import('./http') => require('./http');
const loadModule = (): typeof import('./load') => require('./load');

import type { OperationRecord, ScenarioDef } from './types';

/** One operation as a run keeps it (see link.ts). */
export interface RunOperationEntry {
  record: OperationRecord;
  /** File-wide index of the run's last model call before the operation (-1: none yet). */
  afterModelCall: number;
  toolNames: readonly string[];
  startedAt: number;
  durationMs: number;
}

/** What the host reads from the runtime's run scope (AsyncLocalStorage). */
export interface RunScopeLike {
  calls: ReadonlyArray<{ index: number }>;
  operations?: RunOperationEntry[];
  /** The run's crash fault: told of every operation (it may fire after one). */
  crash?: { afterOperation(record: OperationRecord): void };
}

export interface WorldHostDeps {
  currentRun(): RunScopeLike | undefined;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  fail(code: ErrorCode, message: string): void;
  /** The running test's name; undefined in hooks outside tests and at file level. */
  currentTest(): string | undefined;
  /** A fault to answer a call with instead (a fault sweep's), if any. */
  inject?: EngineHooks['inject'];
  /** The answer `work` gives the current run, unless the run crashed by then (it then never settles). */
  hold?<T>(work: Promise<T>): Promise<T>;
  /** Throws the current run's CrashError if it crashed (for calls that cannot wait). */
  stopIfCrashed?(): void;
}

/** `understudy.world`: this file's world. */
export interface FileWorld extends WorldHandle {
  /** Loads a world file (a relative path is relative to process.cwd()) for the rest of this file. */
  load(path: string): FileWorld;
  /** Whether a world is loaded. */
  readonly loaded: boolean;
}

const MISSING =
  'no world is loaded for this test file. Set testEnvironmentOptions.understudy.world in the Jest config, ' +
  'add the docblock pragma `@understudy-world <path>` to the test file, or call understudy.world.load(path).';

export class WorldHost {
  private definition: WorldDefinition | undefined;
  private baseline: WorldEngine | undefined;
  private engine: WorldEngine | undefined;
  private router: WorldHttpRouter | undefined;
  /** The engine HTTP routes serve instead of the file's (a drill trial, a scenario run), and its routes. */
  private drill: { engine: WorldEngine; actorId: string; router?: WorldHttpRouter } | undefined;
  private testBindings: Binding[] = [];
  readonly handle: FileWorld;

  constructor(
    private readonly deps: WorldHostDeps,
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

  hooks(onDefect?: (message: string) => void): EngineHooks {
    return {
      runKey: () => this.deps.currentRun(),
      onOperation: (record, toolNames, run, startedAt) =>
        this.collect(record, toolNames, run as RunScopeLike, startedAt),
      inject: (call) => this.deps.inject?.(call),
      onDefect: (message, code) => {
        this.deps.fail(code, message);
        onDefect?.(message);
      },
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

  /** See WorldHostDeps.hold: every transport's answer to a run passes here. */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.deps.hold ? this.deps.hold(work) : work;
  }

  /** See WorldHostDeps.stopIfCrashed. */
  stopIfCrashed(): void {
    this.deps.stopIfCrashed?.();
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
    const test = this.deps.currentTest();
    const binding = createBinding(id, options.world ?? this.handle, {
      engine,
      sleep: (ms, signal) => this.deps.sleep(ms, signal),
      hold: (work) => this.hold(work),
      stopIfCrashed: () => this.stopIfCrashed(),
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

  /** Whether a package of the loaded world has its HTTP base URL at this origin. */
  serves(origin: string): boolean {
    return (this.drill?.router ?? this.router)?.serves(origin) ?? false;
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
    const router = this.drill?.router ?? this.router;
    if (!router || router.empty) return undefined;
    const base = router.baseOf(url);
    if (!base) return undefined;
    const engine = this.drill?.engine ?? this.engine!;
    const actor = this.drill?.actorId ?? engine.definition.defaultActor;
    return router.serve(
      engine,
      base,
      { url, ...parts() },
      {
        sleep: this.deps.sleep,
        actor: () => actor,
        fail: this.deps.fail,
      },
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

  handleRequest(request: Request): Promise<Response> | undefined {
    return this.serve(request.url, () => ({
      method: request.method,
      header: (name) => request.headers.get(name),
      body: () => request.text(),
      signal: request.signal,
    }));
  }
}

/** An engine setup for a scenario: a named one in the scenario scope; an inline one's rules per-test. */
export function scenarioSetup(definition: WorldDefinition, scenario: string | ScenarioDef): EngineSetup {
  if (typeof scenario === 'string') {
    return { scenario: definition.source.scenarios![scenario], scenarioScope: 'scenario' };
  }
  const { toolOverrides, ...rest } = scenario;
  return { scenario: rest, testRules: toolOverrides ?? [] };
}
