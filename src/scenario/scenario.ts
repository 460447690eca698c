/**
 * `understudy.scenario()`: a test's setup as an immutable builder over the same engine as
 * drills. Each `with…` returns a new scenario, so a base can be shared by many tests:
 *
 *   const base = understudy.scenario().withWorld('ops.world.yaml').withToolFake('k8s', () => new FakeK8s());
 *   const run = await base.withFixtures(script()…).withSeed(7)
 *     .executeAgent(({ user, fakes, binding }) => agent(user, fakes.k8s), { user: 'Rollback v2.4.1' });
 *
 * Every `executeAgent` builds a fresh world engine (the scenario's world, else the file's,
 * else an empty one for the fakes' evidence) from its initial state, overrides and seed,
 * registers its fixtures for that run only, and makes the fakes (a factory gives a fresh
 * object per run). While the run goes, the world's HTTP routes serve its engine, as in a
 * drill trial; its binding expires when it ends.
 */
import { UnderstudyError } from '../errors';
import type { Fixture } from '../fixtures/types';
import { type FixtureSource, toFixtures } from '../model/mock-model';
import type { CrashPlan } from '../run/crash';
import { executeRun } from '../run/run';
import type { Run } from '../run/types';
import { getContext } from '../sandbox/runtime';
import { compileWorld, type WorldDefinition } from '../world/compile';
import { ToolMockError, WorldError } from '../world/errors';
import { type Binding, expireBinding, type WorldHandle } from '../world/handle';
import { scenarioSetup } from '../world/host';
import type { PackageState, ToolOverride, WorldFile, WorldState } from '../world/types';
import { cloneJson } from '../world/values';
import {
  checkFakeSpec,
  type FakeSpec,
  instanceOf,
  recordingFake,
  type ToolFakeOptions,
  toolsOf,
} from './fakes';

const worldLoader = (): typeof import('../world/load') => require('../world/load');

/** What the agent of `executeAgent` receives. */
export interface ScenarioAgentContext {
  /** The user's message. */
  user: string;
  /** `input` as given to executeAgent. */
  input: unknown;
  /** The tool fakes by name: recording proxies of the objects (their calls are the run's operations). */
  fakes: Record<string, any>;
  /** Every fake's tool methods by tool name (see `toolNames`), for a generic tool loop. */
  tools: Record<string, (...args: any[]) => any>;
  /** Calls the scenario's world (for `mockTool`); expires when the run ends. Absent without a world. */
  binding: Binding | undefined;
  /** The scenario's world for this run. Absent without a world. */
  world: WorldHandle | undefined;
  /** The world's seed for this run. */
  seed: number;
  /** Aborted when the run's `timeoutMs` passes. */
  signal: AbortSignal;
}

export interface ExecuteAgentOptions {
  user: string;
  /** Anything else the agent needs (handed over as `input`). */
  input?: unknown;
  timeoutMs?: number;
  /** The agent may throw or time out (see `understudy.run`). */
  expectError?: boolean;
  /** Stops the run dead at this point (see `understudy.run`'s `crash`). */
  crash?: CrashPlan;
  /** Starts the agent again after this crashed run, on the same world (see `understudy.run`). */
  resumeFrom?: ScenarioRun<any>;
}

/** A scenario's run: a `Run`, plus the world and fakes it ran with (not compared by `toEqual`). */
export type ScenarioRun<Output = unknown> = Run<{ user: string; input?: unknown }, Output> & {
  /** The run's world: its final state, operations (the fakes' calls too) and events. */
  readonly world: WorldHandle | undefined;
  /** The fake objects the run used (not the proxies): read what the agent did to them. */
  readonly fakes: Record<string, any>;
};

interface State {
  fixtures: ReadonlyArray<{ kind: 'file'; path: string } | { kind: 'fixtures'; fixtures: Fixture[] }>;
  fakes: readonly FakeSpec[];
  world?: string;
  initialState?: WorldState;
  overrides: readonly ToolOverride[];
  seed?: number;
}

export interface Scenario {
  /** Replays a cassette (a recorded fixture file) in this scenario's runs. */
  withCassette(path: string): Scenario;
  /** Model fixtures for this scenario's runs: a `script()`, an array, or `{ fixtures }`. */
  withFixtures(source: FixtureSource): Scenario;
  /**
   * An object whose methods are tools, or a function that makes one (a fresh object per run).
   * The agent gets it as `fakes[name]`; its calls are recorded like world operations.
   */
  withToolFake(name: string, fake: object | (() => object), options?: ToolFakeOptions): Scenario;
  /** The world file the runs act in (default: the test file's world, if one is loaded). */
  withWorld(path: string): Scenario;
  /** Starting state per package (`packageId → collection → key → record`); other packages keep the world's. */
  withInitialState(state: WorldState): Scenario;
  /** Tool overrides at the per-test scope. */
  withOverrides(rules: ToolOverride[]): Scenario;
  /** The world's seed (random faults, `ctx.random()`). */
  withSeed(seed: number): Scenario;
  /** Runs the agent in a fresh world built from this scenario; returns its `Run`. */
  executeAgent<Output>(
    agent: (context: ScenarioAgentContext) => Output | Promise<Output>,
    options: ExecuteAgentOptions,
  ): Promise<ScenarioRun<Output>>;
}

function bad(where: string, message: string): UnderstudyError {
  return new UnderstudyError('BAD_ARGUMENT', `scenario.${where}: ${message}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

export function scenario(): Scenario {
  return builder({ fixtures: [], fakes: [], overrides: [] });
}

function builder(state: State): Scenario {
  const next = (change: Partial<State>) => builder({ ...state, ...change });
  const scenario: Scenario = {
    withCassette(path: string) {
      if (typeof path !== 'string' || path === '') throw bad('withCassette(path)', 'expected a file path');
      return next({ fixtures: [...state.fixtures, { kind: 'file' as const, path }] });
    },
    withFixtures(source: FixtureSource) {
      // Checked now, like understudy.model.use: a bad fixture names its path at the line that gave it.
      const fixtures = toFixtures(source, { call: 'scenario.withFixtures()', root: 'fixtures' });
      return next({ fixtures: [...state.fixtures, { kind: 'fixtures' as const, fixtures }] });
    },
    withToolFake(name: string, fake: object | (() => object), options?: ToolFakeOptions) {
      const spec = checkFakeSpec(name, fake, options);
      // The same name again replaces the fake, as a later rule with the same id does.
      return next({ fakes: [...state.fakes.filter((f) => f.name !== name), spec] });
    },
    withWorld(path: string) {
      if (typeof path !== 'string' || path === '') throw bad('withWorld(path)', 'expected a world file path');
      return next({ world: path });
    },
    withInitialState(initial: WorldState) {
      if (!isPlainObject(initial) || !Object.values(initial).every(isPlainObject))
        throw bad(
          'withInitialState(state)',
          'expected { packageId: { collection: { key: record } } }, e.g. { "record-store": { records: { "r-1": { … } } } }',
        );
      return next({ initialState: { ...state.initialState, ...cloneJson(initial) } });
    },
    withOverrides(rules: ToolOverride[]) {
      if (!Array.isArray(rules)) throw bad('withOverrides(rules)', 'expected a list of tool overrides');
      return next({ overrides: [...state.overrides, ...cloneJson(rules)] });
    },
    withSeed(seed: number) {
      if (!Number.isInteger(seed))
        throw bad('withSeed(seed)', `expected an integer, received ${String(seed)}`);
      return next({ seed });
    },
    executeAgent(agent, options) {
      return execute(state, agent, options);
    },
  };
  return Object.freeze(scenario);
}

let executions = 0;
/** Fake objects each session (sweep, provider matrix) has run: running one twice would leak its state. */
const usedInSession = new WeakMap<object, WeakSet<object>>();

const fixtureLoader = (): typeof import('../fixtures/load') => require('../fixtures/load');

/** The scenario's fixtures in order; a cassette is read when a run needs it. */
function fixturesOf(state: State): Fixture[] {
  return state.fixtures.flatMap((f) =>
    f.kind === 'file' ? fixtureLoader().loadFixtures(f.path) : f.fixtures,
  );
}

/** The world of a scenario that has none: no packages, only the fakes' evidence (not a valid file). */
function emptyWorld(): WorldDefinition {
  const compiled = compileWorld({ name: 'scenario', packages: [] } as unknown as WorldFile, {
    dir: process.cwd(),
  });
  if ('findings' in compiled)
    throw new Error(`the empty scenario world: ${JSON.stringify(compiled.findings)}`);
  return compiled.definition;
}

async function execute<Output>(
  state: State,
  agent: (context: ScenarioAgentContext) => Output | Promise<Output>,
  options: ExecuteAgentOptions,
): Promise<ScenarioRun<Output>> {
  if (typeof agent !== 'function')
    throw bad(
      'executeAgent(agent, { user })',
      'agent must be a function ({ user, fakes, tools, binding, signal }) => output',
    );
  if (!isPlainObject(options) || typeof options.user !== 'string')
    throw bad('executeAgent(agent, { user })', 'expected options { user: string, … }');
  const runtime = getContext();
  const host = runtime.world;
  const own = state.world !== undefined ? worldLoader().loadWorldFile(state.world) : host.loaded;
  if (!own && (state.initialState || state.overrides.length > 0))
    throw new WorldError(
      'WORLD_MISSING',
      `scenario.${state.initialState ? 'withInitialState' : 'withOverrides'}(): the scenario has no world; add .withWorld(path) or load one for the test file`,
    );
  const definition: WorldDefinition = own ?? emptyWorld();
  const setup = own ? worldSetup(definition, state) : {};
  const seed = state.seed ?? definition.seed;
  const engine = host.createEngine(definition, { ...setup, seed });

  const id = executions++;
  const owner = { name: `the scenario run #${id + 1}`, list: [] as Binding[] };
  const world = own ? host.handleFor(engine, owner) : undefined;
  const binding = world ? host.bind(() => engine, undefined, { owner, world }) : undefined;

  const session = runtime.session;
  const made = state.fakes.map((spec) => {
    const { instance, fresh } = instanceOf(spec);
    if (session && !fresh) {
      const used = usedInSession.get(session) ?? new WeakSet<object>();
      usedInSession.set(session, used);
      if (used.has(instance))
        throw new UnderstudyError(
          'SWEEP_STATEFUL_FAKE',
          `scenario.withToolFake(${JSON.stringify(spec.name)}, instance): this scenario runs again with the same object, so the state one run left in it would change the next. Pass a factory instead: withToolFake(${JSON.stringify(spec.name)}, () => new …())`,
        );
      used.add(instance);
    }
    const proxy = recordingFake(spec, instance, {
      engine,
      door: host,
      inRun: () => runtime.runs.getStore() !== undefined,
      toolError: (envelope, name, method, seq) =>
        new ToolMockError(envelope, { packageId: name, operationId: method }, seq),
    });
    return { spec, instance, proxy };
  });
  const fakes = Object.fromEntries(made.map((m) => [m.spec.name, m.proxy]));
  const tools = toolsOf(made);

  const scope = `scenario:${id}`;
  runtime.model.register(fixturesOf(state), scope);
  runtime.restartModelSequences();
  const serving = own !== undefined;
  if (serving) host.beginDrill(engine, binding!.actorId);
  let run: Run<{ user: string; input?: unknown }, Output>;
  try {
    const input = { user: options.user, ...(options.input !== undefined && { input: options.input }) };
    run = await executeRun(
      runtime,
      (ctx) =>
        agent({
          user: options.user,
          input: options.input,
          fakes,
          tools,
          binding,
          world,
          seed,
          signal: ctx.signal,
        }),
      {
        input,
        kind: 'scenario',
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        ...(options.expectError !== undefined && { expectError: options.expectError }),
        ...(options.crash !== undefined && { crash: options.crash }),
        ...(options.resumeFrom !== undefined && { resumeFrom: options.resumeFrom }),
      },
    );
  } finally {
    if (serving) host.endDrill();
    runtime.model.clearScope(scope);
    for (const b of owner.list) expireBinding(b);
  }
  const instances = Object.fromEntries(made.map((m) => [m.spec.name, m.instance]));
  // Not enumerable: two runs compare by what the agent did, not by the objects it did it to.
  Object.defineProperties(run, {
    world: { value: world, enumerable: false, configurable: true },
    fakes: { value: instances, enumerable: false, configurable: true },
  });
  return run as ScenarioRun<Output>;
}

/** The engine setup: the initial state over the world's, the overrides at the per-test scope, checked. */
function worldSetup(definition: WorldDefinition, state: State) {
  const toolOverrides = [...state.overrides];
  if (!state.initialState && toolOverrides.length === 0) return {};
  let inline: { state?: WorldState; toolOverrides?: ToolOverride[] } = {};
  if (state.initialState) {
    const full: WorldState = {};
    for (const [id, pkg] of definition.packages) full[id] = cloneJson((pkg.def.state ?? {}) as PackageState);
    inline.state = { ...full, ...state.initialState };
  }
  if (toolOverrides.length > 0) inline.toolOverrides = toolOverrides;
  const label = 'understudy.scenario()';
  inline = worldLoader().checkSetupData(definition, { scenario: inline }, label).scenario as typeof inline;
  return scenarioSetup(definition, inline);
}
