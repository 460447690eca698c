/**
 * `runDrills({ drill, agent, setup, trials, seed })`: runs the agent on a drill of the
 * loaded world and judges it by the drill's success criteria.
 *
 * Each trial gets a fresh engine built from the drill's *build*, a plain JSON object:
 * the world's hash, the starting scenario (a name, or an inline scenario), the per-test
 * rules, the behavior overrides, the actor, the trial count and the seed. Running again
 * with `runDrills({ build, seed, agent })` rebuilds the same engines, so the same agent
 * (with the same model fixtures) produces identical operations. While a trial runs, the
 * world's HTTP routes serve the trial's engine; its binding expires when it ends.
 */
import { type CrashPlan, checkCrashPlan } from '../run/crash';
import { peek } from '../run/outcomes';
import { executeRun } from '../run/run';
import type { Run } from '../run/types';
import { getContext } from '../sandbox/runtime';
import type { CompiledBehavior } from '../world/behaviors';
import { type CriterionResult, evaluateCriteria } from '../world/criteria';
import { didYouMean } from '../world/dialect';
import type { EngineSetup } from '../world/engine/engine';
import { WorldError, WorldFileError } from '../world/errors';
import { type Binding, expireBinding, type WorldHandle } from '../world/handle';
import { scenarioSetup } from '../world/host/scenario-setup';
import { checkSetupData } from '../world/load';
import { opKey, type WorldDefinition } from '../world/model';
import type {
  BehaviorDef,
  OperationRecord,
  OperationRef,
  ScenarioDef,
  ToolOverride,
  WorldEvent,
  WorldState,
} from '../world/types';
import { cloneJson } from '../world/values';

export const BUILD_FORMAT = 'jest-understudy/drill-build@1';

export interface DrillTask {
  /** The drill's name. */
  id: string;
  instruction: string;
  actorId: string;
  /** The scenario's name (absent for an inline scenario or none). */
  scenario?: string;
  input?: unknown;
}

export interface DrillAgentContext {
  task: DrillTask;
  /** Calls the trial's world as the drill's actor; expires when the trial ends. */
  binding: Binding;
  /** The trial's world. */
  world: WorldHandle;
  /** 0-based trial number. */
  trial: number;
  seed: number;
  /** Aborted when the drill's timeoutMs passes. */
  signal: AbortSignal;
  /** 1, or 2 for the attempt that starts again after a crash (`resume`). */
  attempt: number;
}

export interface BehaviorOverride {
  operation: OperationRef;
  /** A built-in, a module (relative to the world file) or the name of an entry of `behaviors`. */
  behavior: BehaviorDef | string;
}

export interface DrillSetup {
  /** A named scenario, or an inline one: a complete starting setup whose rules are per-test. */
  scenario?: string | ScenarioDef;
  /** Per-test rules (the highest scope). */
  toolOverrides?: ToolOverride[];
  tools?: { behaviorOverrides?: BehaviorOverride[] };
}

/** Everything needed to run a drill again, as plain JSON. */
export interface DrillBuild {
  format: typeof BUILD_FORMAT;
  world: { name: string; hash: string; file?: string };
  drill: string;
  /** The starting setup: a named scenario, an inline one (its rules are in `testRules`), or none. */
  scenario: { name: string } | { inline: Omit<ScenarioDef, 'toolOverrides'> } | null;
  /** Per-test rules, compiled in: the inline scenario's, then setup.toolOverrides. */
  testRules: ToolOverride[];
  behaviorOverrides: BehaviorOverride[];
  actorId: string;
  trials: number;
  seed: number;
  /** The crash of each trial's first attempt (the drill's, or runDrills' `crash`); absent without one. */
  crash?: CrashPlan;
}

export interface RunDrillsOptions<Output> {
  /** The drill's name (optional with `build`). */
  drill?: string;
  agent: (context: DrillAgentContext) => Output | Promise<Output>;
  setup?: DrillSetup;
  /** Default: the drill's `trials`, else 1. */
  trials?: number;
  /** Default: the build's seed, else the world's `seed`, else 1. */
  seed?: number;
  /** Run again from a previous result's build. */
  build?: DrillBuild;
  /** Per-trial deadline (default: the drill's timeoutMs). */
  timeoutMs?: number;
  /**
   * Crashes each trial's first attempt, as if the agent's process died (default: the drill's
   * `crash`): after the first success of an operation, or at the n-th model request.
   */
  crash?: CrashPlan;
  /** Starts the agent again after the crash, on the same world (default: `agent` again, with `attempt: 2`). */
  resume?: (context: DrillAgentContext) => Output | Promise<Output>;
}

export interface DrillTrial<Output = unknown> {
  trial: number;
  seed: number;
  verdict: 'passed' | 'failed';
  reasons: string[];
  criteria: CriterionResult[];
  /** The trial's operation log. */
  evidence: OperationRecord[];
  events: WorldEvent[];
  /** The final world state. */
  state: WorldState;
  /** The last attempt's run. */
  run: Run<DrillTask, Output>;
  /** Every attempt's run: the crashed one, then the one that resumed (one without a crash). */
  attempts: Run<DrillTask, Output>[];
}

export interface DrillResult<Output = unknown> {
  drill: string;
  verdict: 'passed' | 'failed';
  /** Why it failed: every failed criterion (and agent error) of every trial. */
  reasons: string[];
  /** The criteria of the first failed trial, else of the last trial. */
  criteria: CriterionResult[];
  /** Every trial's operations, trial after trial (`trials[i].evidence` per trial). */
  evidence: OperationRecord[];
  /** The final state of the last trial. */
  state: WorldState;
  /** Every trial's runs in order (a crashed trial's attempts both). */
  runs: Run<DrillTask, Output>[];
  trials: DrillTrial<Output>[];
  build: DrillBuild;
  seed: number;
}

function trialSeed(seed: number, trial: number): number {
  if (trial === 0) return seed;
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (trial + 1), 0x85ebca6b) >>> 0;
  return (h ^ (h >>> 13)) >>> 0;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n')[0]}`;
  return String(error);
}

/** The build for a drill and a per-test setup (checked against the world first). */
function compileBuild(
  definition: WorldDefinition,
  name: string,
  setup: DrillSetup,
  trials: number | undefined,
  seed: number | undefined,
  crash: CrashPlan | undefined,
): DrillBuild {
  const drill = definition.source.drills![name];
  const chosen = setup.scenario ?? drill.scenario;
  let scenario: DrillBuild['scenario'] = null;
  const testRules: ToolOverride[] = [];
  if (typeof chosen === 'string') scenario = { name: chosen };
  else if (chosen) {
    const { toolOverrides, ...inline } = chosen;
    scenario = { inline: cloneJson(inline) };
    testRules.push(...cloneJson(toolOverrides ?? []));
  }
  testRules.push(...cloneJson(setup.toolOverrides ?? []));
  return {
    format: BUILD_FORMAT,
    world: {
      name: definition.name,
      hash: definition.hash,
      ...(definition.file && { file: definition.file }),
    },
    drill: name,
    scenario,
    testRules,
    behaviorOverrides: cloneJson(setup.tools?.behaviorOverrides ?? []),
    actorId: drill.actor ?? definition.defaultActor,
    trials: trials ?? drill.trials ?? 1,
    seed: seed ?? definition.seed,
    ...((crash ?? drill.crash) && { crash: cloneJson(crash ?? drill.crash) as CrashPlan }),
  };
}

/** A crash plan that names an operation must name one the world has. */
function checkCrash(definition: WorldDefinition, plan: unknown, where: string): CrashPlan {
  const crash = checkCrashPlan(plan, where);
  if (crash.afterOperation === undefined) return crash;
  const raw = crash.afterOperation;
  const [packageId, operationId] =
    typeof raw === 'string'
      ? raw.includes('/')
        ? [raw.slice(0, raw.indexOf('/')), raw.slice(raw.indexOf('/') + 1)]
        : [undefined, raw]
      : [raw.packageId, raw.operationId];
  const ops = [...definition.operations.values()];
  if (
    !ops.some((o) => o.operationId === operationId && (packageId === undefined || o.packageId === packageId))
  )
    throw new WorldError(
      'UNKNOWN_OPERATION',
      `${where}: world ${JSON.stringify(definition.name)} has no operation ${JSON.stringify(packageId ? `${packageId}/${operationId}` : operationId)}; ${didYouMean(
        operationId,
        ops.map((o) => o.operationId),
        'operations',
      )}`,
    );
  return crash;
}

/** The build as a setup again, so a build (possibly from elsewhere) is checked like one. */
function setupOf(build: DrillBuild): DrillSetup {
  const scenario =
    build.scenario === null
      ? undefined
      : 'name' in build.scenario
        ? build.scenario.name
        : { ...build.scenario.inline };
  return {
    ...(scenario !== undefined && { scenario }),
    toolOverrides: build.testRules,
    tools: { behaviorOverrides: build.behaviorOverrides },
  };
}

function validBuild(build: unknown): build is DrillBuild {
  const b = build as Partial<DrillBuild> | null;
  return (
    b !== null &&
    typeof b === 'object' &&
    b.format === BUILD_FORMAT &&
    typeof b.drill === 'string' &&
    typeof b.world?.hash === 'string' &&
    Array.isArray(b.testRules) &&
    Array.isArray(b.behaviorOverrides) &&
    typeof b.actorId === 'string' &&
    typeof b.seed === 'number' &&
    typeof b.trials === 'number' &&
    (b.crash === undefined || (typeof b.crash === 'object' && b.crash !== null))
  );
}

export async function runDrills<Output = unknown>(
  options: RunDrillsOptions<Output>,
): Promise<DrillResult<Output>> {
  if (typeof options?.agent !== 'function') {
    throw new WorldError(
      'BAD_ARGUMENT',
      'runDrills({ agent }): agent must be a function ({ task, binding, world }) => output',
    );
  }
  const runtime = getContext();
  const host = runtime.world;
  const definition = host.require('runDrills');
  const drills = definition.source.drills ?? {};

  let build: DrillBuild;
  if (options.build !== undefined) {
    if (!validBuild(options.build)) {
      throw new WorldError(
        'BAD_ARGUMENT',
        `runDrills({ build }): not a drill build (${BUILD_FORMAT}); pass a DrillResult's build`,
      );
    }
    if (options.setup !== undefined) {
      throw new WorldError(
        'BAD_ARGUMENT',
        'runDrills({ build, setup }): a build already holds its setup; give one or the other',
      );
    }
    if (options.build.world.hash !== definition.hash) {
      throw new WorldError(
        'BUILD_MISMATCH',
        `runDrills({ build }): the build was made from world ${JSON.stringify(options.build.world.name)} ${options.build.world.hash}` +
          `${options.build.world.file ? ` (${options.build.world.file})` : ''}, but this file's world is ${definition.hash}` +
          `${definition.file ? ` (${definition.file})` : ''}: the world file or a behavior module changed`,
      );
    }
    if (options.drill !== undefined && options.drill !== options.build.drill) {
      throw new WorldError(
        'BAD_ARGUMENT',
        `runDrills: drill ${JSON.stringify(options.drill)} differs from the build's ${JSON.stringify(options.build.drill)}`,
      );
    }
    build = {
      ...cloneJson(options.build),
      ...(options.seed !== undefined && { seed: options.seed }),
      ...(options.trials !== undefined && { trials: options.trials }),
      ...(options.crash !== undefined && { crash: cloneJson(options.crash) }),
    };
  } else {
    if (typeof options.drill !== 'string' || !Object.hasOwn(drills, options.drill)) {
      throw new WorldError(
        'UNKNOWN_DRILL',
        `runDrills({ drill }): world ${JSON.stringify(definition.name)} has no drill ${JSON.stringify(options.drill)}; ${didYouMean(String(options.drill), Object.keys(drills), 'drills')}`,
      );
    }
    checkSetupData(definition, options.setup ?? {});
    build = compileBuild(
      definition,
      options.drill,
      options.setup ?? {},
      options.trials,
      options.seed,
      options.crash,
    );
  }
  const crash = build.crash ? checkCrash(definition, build.crash, 'runDrills({ crash })') : undefined;
  if (options.resume !== undefined && typeof options.resume !== 'function')
    throw new WorldError(
      'BAD_ARGUMENT',
      'runDrills({ resume }): resume must be a function ({ task, binding, world, attempt }) => output',
    );
  if (!Object.hasOwn(drills, build.drill)) {
    throw new WorldError(
      'UNKNOWN_DRILL',
      `runDrills({ build }): the world has no drill ${JSON.stringify(build.drill)}`,
    );
  }
  if (!(Number.isInteger(build.trials) && build.trials >= 1)) {
    throw new WorldError(
      'BAD_ARGUMENT',
      `runDrills: trials must be an integer ≥ 1, received ${String(build.trials)}`,
    );
  }
  const setup = checkSetupData(definition, setupOf(build));
  const drill = drills[build.drill];

  const behaviorOverrides = new Map<string, CompiledBehavior>();
  for (const [i, entry] of build.behaviorOverrides.entries()) {
    const op = definition.operations.get(opKey(entry.operation.packageId, entry.operation.operationId))!;
    const compiled = definition.compileBehavior(entry.behavior, op, [
      'tools',
      'behaviorOverrides',
      i,
      'behavior',
    ]);
    if ('findings' in compiled) {
      throw new WorldFileError(
        compiled.findings.map((f) => ({
          code: f.code,
          file: 'runDrills({ setup })',
          path: `$.tools.behaviorOverrides[${i}].behavior`,
          message: f.message,
          ...(f.suggestion && { suggestion: f.suggestion }),
        })),
        'runDrills({ setup })',
      );
    }
    behaviorOverrides.set(op.key, compiled.behavior);
  }
  const base: EngineSetup = {
    ...(setup.scenario === undefined
      ? {}
      : typeof setup.scenario === 'string'
        ? scenarioSetup(definition, setup.scenario)
        : { scenario: setup.scenario }),
    drillRules: drill.toolOverrides ?? [],
    testRules: build.testRules,
    behaviorOverrides,
  };
  const task: DrillTask = {
    id: build.drill,
    instruction: drill.instruction,
    actorId: build.actorId,
    ...(typeof setup.scenario === 'string' && { scenario: setup.scenario }),
    ...(drill.input !== undefined && { input: cloneJson(drill.input) }),
  };
  const timeoutMs = options.timeoutMs ?? drill.timeoutMs;

  const trials: DrillTrial<Output>[] = [];
  for (let i = 0; i < build.trials; i++) {
    const seed = trialSeed(build.seed, i);
    const defects: string[] = [];
    const engine = host.createEngine(definition, { ...base, seed }, (message) => defects.push(message));
    const owner = { name: `trial ${i + 1} of the drill "${build.drill}"`, list: [] as Binding[] };
    const world = host.handleFor(engine, owner);
    const binding = host.bind(() => engine, build.actorId, { owner, world });
    host.beginDrill(engine, build.actorId);
    runtime.restartModelSequences();
    const attempts: Run<DrillTask, Output>[] = [];
    const attempt = (
      n: number,
      agent: RunDrillsOptions<Output>['agent'],
      resumeFrom?: Run<DrillTask, Output>,
    ) =>
      executeRun<DrillTask, Output>(
        runtime,
        (ctx) =>
          agent({ task: cloneJson(task), binding, world, trial: i, seed, signal: ctx.signal, attempt: n }),
        {
          input: cloneJson(task),
          ...(timeoutMs !== undefined && { timeoutMs }),
          kind: 'drill',
          ...(n === 1 && crash && { crash, crashMissed: (message: string) => defects.push(message) }),
          ...(resumeFrom && { resumeFrom }),
        },
      );
    let run: Run<DrillTask, Output>;
    try {
      run = await attempt(1, options.agent);
      attempts.push(run);
      // The world keeps what the crashed attempt did; the agent starts again on it.
      if (crash && peek(run, 'terminalState') === 'crashed') {
        run = await attempt(2, options.resume ?? options.agent, run);
        attempts.push(run);
      }
    } finally {
      host.endDrill();
      for (const b of owner.list) expireBinding(b);
    }
    const state = engine.snapshot();
    const operations = [...engine.operations];
    const workspaces = [...definition.packages.values()].filter((p) => p.tree).map((p) => p.def.id);
    const criteria = evaluateCriteria(drill.success, state, operations, (id) => {
      const packageId = id ?? (workspaces.length === 1 ? workspaces[0] : undefined);
      return packageId === undefined ? undefined : engine.workspaceFiles(packageId);
    });
    // The trial's workspace folders are its own: gone once it is judged.
    engine.dispose();
    const reasons = criteria
      .filter((c) => !c.passed)
      .map((c) => `${c.description}: ${c.found ?? 'did not hold'}`);
    // Read unnoticed: the test looks at these through the verdict and reasons (see run/outcomes.ts).
    const terminalState = peek(run, 'terminalState');
    if (terminalState === 'errored') reasons.push(`the agent threw ${errorText(peek(run, 'error'))}`);
    if (terminalState === 'timed_out') reasons.push(`the agent did not finish within ${timeoutMs} ms`);
    for (const d of defects) reasons.push(d);
    const verdict = reasons.length === 0 ? 'passed' : 'failed';
    // Read by the trace exporter (not enumerable: a Run compares as before).
    for (const r of attempts)
      Object.defineProperty(r, 'drill', {
        value: { name: build.drill, build, seed, verdict },
        enumerable: false,
        configurable: true,
      });
    trials.push(
      runtime.outcomes.seenThrough(
        {
          trial: i,
          seed,
          verdict,
          reasons,
          criteria,
          evidence: operations,
          events: [...engine.events],
          state,
          run,
          attempts,
        },
        ['verdict', 'reasons'],
        attempts,
      ),
    );
  }

  const failed = trials.filter((t) => peek(t, 'verdict') === 'failed');
  const prefix = (t: DrillTrial<Output>, reason: string) =>
    build.trials > 1 ? `trial ${t.trial + 1}: ${reason}` : reason;
  const result: DrillResult<Output> = {
    drill: build.drill,
    verdict: failed.length === 0 ? 'passed' : 'failed',
    reasons: failed.flatMap((t) => peek(t, 'reasons').map((r) => prefix(t, r))),
    criteria: (failed[0] ?? trials[trials.length - 1]).criteria,
    evidence: trials.flatMap((t) => t.evidence),
    state: trials[trials.length - 1].state,
    runs: trials.flatMap((t) => t.attempts),
    trials,
    build,
    seed: build.seed,
  };
  // The verdict and reasons carry every trial's agent error: reading them looks at the runs.
  return runtime.outcomes.seenThrough(result, ['verdict', 'reasons'], result.runs);
}
