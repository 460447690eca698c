/**
 * The world engine: ONE call path for every transport (mockTool, HTTP, MCP, the served port). The
 * transports reach it through the world's one door, `WorldHost.callTool` (./host.ts), which names
 * the run a call belongs to before the engine sees it.
 *
 *   call → permissions → input validation → budgets → idempotency (a repeated
 *   successful key returns its receipt before any override is chosen) → override
 *   selection (return / error / original) → faults on the normal path → behavior in a
 *   transaction → output validation → evidence
 *
 * The core is synchronous, so `mockTool(…, { mode: 'sync' })` can run it inside a plain
 * function call. Time is the one thing a synchronous call cannot spend: a latency or
 * timeout fault returns `delayMs`, which async transports (mockTool async, HTTP) wait
 * on the runtime clock (Jest fake timers, or real time × timeScale); the world clock
 * moves by the same amount (at once, unless fake timers carry it), and sync calls
 * report it in the evidence (`latencyMs`) without waiting.
 *
 * Failures are values here (an envelope with a code); only transports throw.
 */
import { seededRandom } from '../random';
import {
  type BehaviorContext,
  BehaviorFailure,
  type CompiledBehavior,
  type Handler,
  runBuiltin,
} from './behaviors';
import { WorldClock } from './clock';
import { ajvMessages, type CompiledOperation, opKey, type WorldDefinition } from './compile';
import { closest } from './dialect';
import { ENGINE_ERRORS, type EngineErrorCode, engineError, WorldError } from './errors';
import { RuleSet } from './rules';
import type {
  BudgetDef,
  FaultDef,
  OperationOutcome,
  OperationRecord,
  PackageState,
  ScenarioDef,
  ScheduledEventDef,
  ToolErrorEnvelope,
  ToolOverride,
  Transport,
  WorldEvent,
  WorldEventPayload,
  WorldState,
} from './types';
import { argumentsMatch, cloneJson, deepEqual } from './values';
import { runWorkspaceOperation } from './workspace/operations';
import type { FileTree } from './workspace/tree';
import { Workspace, WorkspaceStore } from './workspace/workspace';

/** A tool call as a transport hands it to the world. */
export interface ToolCall {
  packageId: string;
  operationId: string;
  input: unknown;
  /** Default: the world's default actor. */
  actorId?: string;
  idempotencyKey?: string;
}

/**
 * How a call is made: `sync` callers cannot wait, so latency moves the world clock at once;
 * `async` ones wait it out on the runtime clock.
 */
export type CallMode = 'sync' | 'async';

export interface CallResult<Run extends object = object> {
  /** Absent for a call that was refused before it ran (it belongs to no run: see WorldHost.callTool). */
  record?: OperationRecord;
  outcome: OperationOutcome;
  /** Simulated latency an async transport waits before answering. */
  delayMs: number;
  /** The run the call belongs to, as its caller claimed it. */
  run?: Run;
}

/** How an engine is set up beyond its world file: what a drill build compiles into. */
export interface EngineSetup {
  /** A complete starting setup (named or inline). */
  scenario?: ScenarioDef;
  /** The scenario's rules are in the `scenario` scope when named, in `test` when inline. */
  scenarioScope?: 'scenario' | 'test';
  drillRules?: readonly ToolOverride[];
  testRules?: readonly ToolOverride[];
  behaviorOverrides?: ReadonlyMap<string, CompiledBehavior>;
  seed?: number;
}

export interface EngineHooks {
  /**
   * Every operation made inside a run (the `run` its caller named), as it lands in the
   * evidence; `toolNames` are the operation's; `startedAt` is performance.now() when the call arrived.
   */
  onOperation?(record: OperationRecord, toolNames: readonly string[], run: object, startedAt: number): void;
  /**
   * A call that passed permissions, input validation and budgets: a fault to answer it with
   * instead (a fault sweep's), or undefined to go on.
   */
  inject?(call: InjectionPoint): InjectedFault | undefined;
  /** A defect of the world itself (a behavior threw, returned invalid output…): fails the test. */
  onDefect?(message: string, code: EngineErrorCode): void;
  /** Where the workspace folders this engine makes are tracked, so the file deletes what is left. */
  workspaces?: WorkspaceStore;
}

/** A call as a fault sweep sees it, where it may answer with a fault instead. */
export interface InjectionPoint {
  packageId: string;
  operationId: string;
  input: unknown;
  /** The error codes the operation declares, in order. */
  declared: readonly string[];
  transport: Transport;
}

/** A fault answered instead of the operation: one of its declared errors, or a timeout. */
export type InjectedFault = { kind: 'error'; code: string } | { kind: 'timeout'; ms: number };

interface CompiledFault {
  id: string;
  def: FaultDef;
}

type Scheduled =
  | { due: number; order: number; packageId: string; kind: 'definition'; def: ScheduledEventDef }
  | { due: number; order: number; packageId: string; kind: 'handler'; handler: Handler; source: string }
  | {
      due: number;
      order: number;
      packageId: string;
      kind: 'event';
      event: WorldEventPayload;
      source: string;
    };

interface Transaction {
  events: WorldEventPayload[];
  scheduled: Array<{ afterMs: number; what: Handler | WorldEventPayload }>;
}

function hashSeed(seed: number, key: string): number {
  let h = seed >>> 0 || 1;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const isThenable = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';

export class WorldEngine {
  readonly clock = new WorldClock();
  readonly seed: number;
  readonly rules: RuleSet;
  private readonly faultsByOp = new Map<string, CompiledFault[]>();
  private readonly scheduledDefs: readonly ScheduledEventDef[];
  private readonly budgets: readonly BudgetDef[];

  private state: WorldState = {};
  private evidence: OperationRecord[] = [];
  private eventLog: WorldEvent[] = [];
  private seq = 0;
  private eventSeq = 0;
  private receipts = new Map<string, { input: unknown; value: unknown; seq: number; packageId: string }>();
  private budgetCounts = new WeakMap<object, number[]>();
  private outsideRuns: object = {};
  private faultCounts = new Map<string, { calls: number; fired: number }>();
  private randoms = new Map<string, () => number>();
  private keyCounters = new Map<string, number>();
  private pending: Scheduled[] = [];
  private order = 0;
  /** World time of the scheduled item firing now (its clockMs), else undefined. */
  private firingAt: number | undefined;
  /** Workspace folders, made when first used (most tests of a file never touch one). */
  private workspaces = new Map<string, Workspace>();
  private readonly workspaceStore: WorkspaceStore;

  constructor(
    readonly definition: WorldDefinition,
    readonly setup: EngineSetup = {},
    private readonly hooks: EngineHooks = {},
  ) {
    this.seed = setup.seed ?? definition.seed;
    this.workspaceStore = hooks.workspaces ?? new WorkspaceStore();
    const source = definition.source;
    const scenario = setup.scenario;
    this.rules = new RuleSet({
      world: source.toolOverrides ?? [],
      scenario: setup.scenarioScope === 'test' ? [] : (scenario?.toolOverrides ?? []),
      drill: setup.drillRules ?? [],
      test: [
        ...(setup.scenarioScope === 'test' ? (scenario?.toolOverrides ?? []) : []),
        ...(setup.testRules ?? []),
      ],
    });
    const faults = scenario?.faults ?? source.faults ?? [];
    const origin = scenario?.faults ? 'scenario' : 'world';
    faults.forEach((def, i) => {
      const key = opKey(def.operation.packageId, def.operation.operationId);
      const list = this.faultsByOp.get(key) ?? [];
      this.faultsByOp.set(key, list);
      list.push({ id: def.id ?? `${origin}-fault#${i}`, def });
    });
    this.scheduledDefs = scenario?.events ?? source.events ?? [];
    this.budgets = source.budgets ?? [];
    this.reset();
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────────

  /** The starting state of one package: the scenario's (a complete setup) or the world's. */
  private initialStateOf(packageId: string): PackageState {
    const scenario = this.setup.scenario;
    if (scenario?.state) return cloneJson(scenario.state[packageId] ?? {});
    return cloneJson(this.definition.packages.get(packageId)?.def.state ?? {});
  }

  /**
   * Whole-world reset: state, rule counts, fault counts, budgets, idempotency receipts,
   * the clock, scheduled events, evidence and events. With `packages`: only those
   * packages' state, the counts of rules and faults on their operations, their receipts
   * and pending consequences (the clock, evidence and budgets keep going).
   */
  reset(packages?: readonly string[]): void {
    if (packages) {
      for (const id of packages) {
        if (!this.definition.packages.has(id)) {
          throw new WorldError(
            'UNKNOWN_PACKAGE',
            `world.reset({ packages }): unknown package ${JSON.stringify(id)}${hint(id, this.definition.packages.keys())}`,
          );
        }
      }
      const set = new Set(packages);
      for (const id of set) this.state[id] = this.initialStateOf(id);
      for (const id of set) this.disposeWorkspace(id);
      this.rules.resetCounts(set);
      for (const [key, list] of this.faultsByOp) {
        if (set.has(key.slice(0, key.indexOf('/')))) for (const f of list) this.faultCounts.delete(f.id);
      }
      for (const [key, receipt] of this.receipts) if (set.has(receipt.packageId)) this.receipts.delete(key);
      for (const key of [...this.keyCounters.keys()])
        if (set.has(key.slice(0, key.indexOf('\u0000')))) this.keyCounters.delete(key);
      this.pending = this.pending.filter((p) => p.kind === 'definition' || !set.has(p.packageId));
      return;
    }
    this.state = {};
    for (const id of this.definition.packages.keys()) this.state[id] = this.initialStateOf(id);
    this.dispose();
    this.rules.resetCounts();
    this.faultCounts = new Map();
    this.randoms = new Map();
    this.receipts = new Map();
    this.budgetCounts = new WeakMap();
    this.outsideRuns = {};
    this.keyCounters = new Map();
    this.clock.reset();
    this.evidence = [];
    this.eventLog = [];
    this.seq = 0;
    this.eventSeq = 0;
    this.order = 0;
    this.pending = [];
    for (const def of this.scheduledDefs)
      this.enqueue({ due: def.atMs, order: 0, packageId: def.packageId, kind: 'definition', def });
  }

  // ── Workspaces ──────────────────────────────────────────────────────────────

  /** The folder of a workspace package, made (fresh from its tree) when first needed. */
  workspace(packageId: string): Workspace {
    const existing = this.workspaces.get(packageId);
    if (existing && !existing.disposed) return existing;
    const tree = this.definition.packages.get(packageId)?.tree;
    if (!tree) {
      const ids = [...this.definition.packages.values()]
        .filter((p) => p.tree)
        .map((p) => JSON.stringify(p.def.id));
      throw new WorldError(
        'UNKNOWN_PACKAGE',
        `world ${JSON.stringify(this.definition.name)} has no workspace package ${JSON.stringify(packageId)}${ids.length > 0 ? ` (its workspaces: ${ids.join(', ')})` : ' (it declares none: give a package "kind": "workspace")'}`,
      );
    }
    const workspace = new Workspace(packageId, tree, this.workspaceStore);
    this.workspaces.set(packageId, workspace);
    return workspace;
  }

  /** A workspace package's files as it started and as they are now (its tree, when never made). */
  workspaceFiles(packageId: string): { initial: FileTree; current: FileTree } | undefined {
    const tree = this.definition.packages.get(packageId)?.tree;
    if (!tree) return undefined;
    const live = this.workspaces.get(packageId);
    return { initial: tree, current: live && !live.disposed ? live.snapshot() : tree };
  }

  /** The workspaces made so far and still there. */
  liveWorkspaces(): Workspace[] {
    return [...this.workspaces.values()].filter((w) => !w.disposed);
  }

  private disposeWorkspace(packageId: string): void {
    this.workspaces.get(packageId)?.dispose();
    this.workspaces.delete(packageId);
  }

  /** Deletes this engine's workspace folders (a later call makes fresh ones). */
  dispose(): void {
    for (const id of [...this.workspaces.keys()]) this.disposeWorkspace(id);
  }

  // ── Reads ───────────────────────────────────────────────────────────────────

  /** A copy of the current state (scheduled events due by now have fired). */
  snapshot(): WorldState {
    this.settle();
    return cloneJson(this.state);
  }

  get operations(): readonly OperationRecord[] {
    this.settle();
    return this.evidence;
  }

  /** The evidence as it is, without firing due events (for counters that must not change anything). */
  get rawOperations(): readonly OperationRecord[] {
    return this.evidence;
  }

  get events(): readonly WorldEvent[] {
    this.settle();
    return this.eventLog;
  }

  /** The operation, or a WorldError naming what exists. */
  operation(packageId: string, operationId: string): CompiledOperation {
    const op = this.definition.operations.get(opKey(packageId, operationId));
    if (op) return op;
    const pkg = this.definition.packages.get(packageId);
    if (!pkg) {
      throw new WorldError(
        'UNKNOWN_PACKAGE',
        `world ${JSON.stringify(this.definition.name)} has no package ${JSON.stringify(packageId)}${hint(packageId, this.definition.packages.keys())}`,
      );
    }
    throw new WorldError(
      'UNKNOWN_OPERATION',
      `package ${JSON.stringify(packageId)} has no operation ${JSON.stringify(operationId)}${hint(operationId, pkg.operations.keys())}`,
    );
  }

  // ── The call path ───────────────────────────────────────────────────────────

  /**
   * One call. `run` identifies the run it belongs to (per-run budgets, the run's evidence), as
   * the caller claimed it; undefined outside runs.
   */
  call<Run extends object>(
    request: ToolCall,
    transport: Transport,
    mode: CallMode,
    run: Run | undefined,
  ): CallResult<Run> {
    // Timing and run attribution only inside runs (they cost a few µs per call).
    const startedAt = run ? performance.now() : 0;
    this.settle();
    const op = this.operation(request.packageId, request.operationId);
    const actorId = request.actorId ?? this.definition.defaultActor;
    const clockMs = this.clock.now();
    const input = cloneJson(request.input);
    const record: OperationRecord = {
      seq: ++this.seq,
      packageId: op.packageId,
      operationId: op.operationId,
      input,
      actorId,
      transport,
      outcome: { kind: 'ok', value: undefined },
      clockMs,
    };
    let delayMs = 0;
    const outcome = this.decide(op, record, input, actorId, request, transport, run, (ms) => {
      delayMs += ms;
    });
    record.outcome = outcome;
    if (delayMs > 0) {
      record.latencyMs = delayMs;
      if (mode === 'sync' || !this.clock.faked) this.clock.advance(delayMs);
    }
    this.evidence.push(record);
    if (run) this.hooks.onOperation?.(record, op.toolNames, run, startedAt);
    const result: OperationOutcome =
      outcome.kind === 'ok'
        ? { kind: 'ok', value: cloneJson(outcome.value) }
        : { kind: 'error', error: { ...outcome.error } };
    return { record, outcome: result, delayMs, run };
  }

  private decide(
    op: CompiledOperation,
    record: OperationRecord,
    input: unknown,
    actorId: string,
    request: ToolCall,
    transport: Transport,
    run: object | undefined,
    delay: (ms: number) => void,
  ): OperationOutcome {
    // 1. Permissions
    const actors = this.definition.actors;
    if (actors) {
      const actor = actors.get(actorId);
      const name = op.key;
      if (!actor) {
        return fail(
          engineError('PERMISSION_DENIED', `actor ${JSON.stringify(actorId)} is not declared in this world`),
        );
      }
      if (!actor.allow.some((m) => m(name)) || actor.deny.some((m) => m(name))) {
        return fail(
          engineError('PERMISSION_DENIED', `actor ${JSON.stringify(actorId)} may not call ${name}`),
        );
      }
    }
    // 2. Input validation
    if (!op.validateInput(input)) {
      const problems = ajvMessages(op.validateInput.errors, input);
      return fail(
        engineError(
          'INVALID_INPUT',
          `the input does not match ${op.key}'s input schema: ${problems.join('; ')}`,
          {
            problems,
          },
        ),
      );
    }
    // 3. Budgets
    const exceeded = this.spendBudget(op, actorId, run);
    if (exceeded) return fail(exceeded);
    // 3½. An injected fault (a fault sweep's) answers instead of everything below.
    const injected = this.hooks.inject?.({
      packageId: op.packageId,
      operationId: op.operationId,
      input,
      declared: [...op.errors.keys()],
      transport,
    });
    if (injected) {
      record.faults = [{ id: 'injected', kind: injected.kind }];
      if (injected.kind === 'error') return fail(this.declared(op, injected.code));
      delay(injected.ms);
      return fail(
        engineError(
          'TIMEOUT',
          `${op.key} timed out${injected.ms ? ` after ${injected.ms} ms` : ''} (an injected fault)`,
        ),
      );
    }
    // 4. Idempotency: a repeated successful key returns its receipt before any override is chosen.
    const key = request.idempotencyKey ?? this.keyFromInput(op, input);
    let receiptKey: string | undefined;
    if (key !== undefined) {
      record.idempotencyKey = key;
      receiptKey = `${op.key}\u0000${key}`;
      const receipt = this.receipts.get(receiptKey);
      if (receipt) {
        if (!deepEqual(receipt.input, input)) {
          return fail(
            engineError(
              'IDEMPOTENCY_CONFLICT',
              `idempotency key ${JSON.stringify(key)} was used by operation #${receipt.seq} with a different input`,
              { of: receipt.seq },
            ),
          );
        }
        record.idempotent = { replayed: true, of: receipt.seq };
        return { kind: 'ok', value: cloneJson(receipt.value) };
      }
    }
    // 5. Overrides
    let outcome: OperationOutcome | undefined;
    if (this.rules.has(op.key)) {
      const selected = this.rules.select(op.key, input, actorId);
      if (selected) {
        const o = selected.outcome;
        record.override = {
          id: selected.rule.id,
          scope: selected.rule.scope,
          outcome: o.kind,
          matchCount: selected.matchCount,
        };
        if (o.kind === 'return') outcome = { kind: 'ok', value: cloneJson(o.value) };
        else if (o.kind === 'error')
          outcome = { kind: 'error', error: this.declared(op, o.code, o.message, o.retryable, o.details) };
      }
    }
    // 6–8. Normal behavior: faults, then the behavior in a transaction, then output validation.
    outcome ??= this.original(op, record, input, actorId, delay);
    if (outcome.kind === 'ok' && receiptKey !== undefined) {
      this.receipts.set(receiptKey, {
        input,
        value: cloneJson(outcome.value),
        seq: record.seq,
        packageId: op.packageId,
      });
    }
    return outcome;
  }

  /**
   * A call served outside the engine (a scenario's tool fake), logged in this world's evidence
   * and in `run`'s (as its caller claimed it) like an operation of its own. `startedAt` is
   * performance.now() when it began.
   */
  logExternal(
    call: Pick<OperationRecord, 'packageId' | 'operationId' | 'input' | 'transport' | 'outcome'> & {
      actorId?: string;
      faults?: OperationRecord['faults'];
    },
    toolNames: readonly string[],
    startedAt: number,
    run: object | undefined,
  ): OperationRecord {
    const record: OperationRecord = {
      seq: ++this.seq,
      packageId: call.packageId,
      operationId: call.operationId,
      input: call.input,
      actorId: call.actorId ?? this.definition.defaultActor,
      transport: call.transport,
      outcome: call.outcome,
      ...(call.faults && { faults: call.faults }),
      clockMs: this.clock.now(),
    };
    this.evidence.push(record);
    if (run) this.hooks.onOperation?.(record, toolNames, run, startedAt);
    return record;
  }

  private keyFromInput(op: CompiledOperation, input: unknown): string | undefined {
    const field = op.def.idempotency?.keyFrom;
    if (field === undefined || input === null || typeof input !== 'object') return undefined;
    const value = (input as Record<string, unknown>)[field];
    return value === undefined || value === null ? undefined : String(value);
  }

  private spendBudget(
    op: CompiledOperation,
    actorId: string,
    inRun: object | undefined,
  ): ToolErrorEnvelope | undefined {
    if (this.budgets.length === 0) return undefined;
    const run = inRun ?? this.outsideRuns;
    const counts = this.budgetCounts.get(run) ?? [];
    this.budgetCounts.set(run, counts);
    const applicable: number[] = [];
    for (let i = 0; i < this.budgets.length; i++) {
      const b = this.budgets[i];
      if (b.operation && b.operation.packageId !== op.packageId) continue;
      if (b.operation?.operationId !== undefined && b.operation.operationId !== op.operationId) continue;
      if (b.actorId !== undefined && b.actorId !== actorId) continue;
      if ((counts[i] ?? 0) >= b.maxCalls) {
        const name = b.id ?? `budgets[${i}]`;
        return engineError(
          'BUDGET_EXCEEDED',
          `budget ${JSON.stringify(name)} allows ${b.maxCalls} call${b.maxCalls === 1 ? '' : 's'} per run; ${op.key} would exceed it`,
          { budget: name, maxCalls: b.maxCalls },
        );
      }
      applicable.push(i);
    }
    for (const i of applicable) counts[i] = (counts[i] ?? 0) + 1;
    return undefined;
  }

  /** A declared error's envelope (engine codes are always declared). */
  private declared(
    op: CompiledOperation,
    code: string,
    message?: string,
    retryable?: boolean,
    details?: unknown,
  ): ToolErrorEnvelope {
    const declared = op.errors.get(code);
    if (!declared) {
      // Only engine codes get here (the loader refuses undeclared codes in files).
      const known = Object.hasOwn(ENGINE_ERRORS, code) ? (code as EngineErrorCode) : 'BEHAVIOR_ERROR';
      return engineError(known, message ?? code, details);
    }
    return {
      code,
      message: message ?? declared.message ?? code,
      retryable: retryable ?? declared.retryable ?? false,
      status: declared.status,
      ...(details !== undefined && { details: cloneJson(details) }),
      ...(declared.retryAfter !== undefined && { retryAfter: declared.retryAfter }),
    };
  }

  private random(key: string): () => number {
    let random = this.randoms.get(key);
    if (!random) {
      random = seededRandom(hashSeed(this.seed, key));
      this.randoms.set(key, random);
    }
    return random;
  }

  /** Faults on the normal path, then the behavior. */
  private original(
    op: CompiledOperation,
    record: OperationRecord,
    input: unknown,
    actorId: string,
    delay: (ms: number) => void,
  ): OperationOutcome {
    const faults = this.faultsByOp.get(op.key);
    if (faults) {
      for (const fault of faults) {
        const def = fault.def;
        if (def.when?.actorId !== undefined && def.when.actorId !== actorId) continue;
        if (def.when?.arguments !== undefined && !argumentsMatch(def.when.arguments, input)) continue;
        const counts = this.faultCounts.get(fault.id) ?? { calls: 0, fired: 0 };
        this.faultCounts.set(fault.id, counts);
        counts.calls++;
        if (def.times !== undefined && counts.fired >= def.times) continue;
        const fires = def.onCalls
          ? def.onCalls.includes(counts.calls)
          : def.rate !== undefined
            ? this.random(`fault:${fault.id}`)() < def.rate
            : true;
        if (!fires) continue;
        counts.fired++;
        record.faults = [...(record.faults ?? []), { id: fault.id, kind: def.kind }];
        if (def.kind === 'latency') delay(def.ms ?? 0);
        else if (def.kind === 'error') return fail(this.declared(op, def.code!, def.message));
        else {
          delay(def.ms ?? 0);
          return fail(
            engineError(
              'TIMEOUT',
              def.message ?? `${op.key} timed out${def.ms ? ` after ${def.ms} ms` : ''}`,
            ),
          );
        }
      }
    }
    const behavior = this.setup.behaviorOverrides?.get(op.key) ?? op.behavior;
    if (behavior?.kind === 'workspace') return this.workspaceCall(op, record, input, behavior.operation);
    const clockMs = record.clockMs;
    return this.transaction(
      op.packageId,
      behavior?.kind === 'builtin' ? 'shallow' : 'deep',
      clockMs,
      (ctx, tx) => {
        if (!behavior) return { kind: 'ok', value: null };
        const value =
          behavior.kind === 'builtin'
            ? runBuiltin(behavior.def, ctx as BehaviorContext<Record<string, unknown>>, (prefix) =>
                this.nextKey(op.packageId, behavior.def.collection, prefix),
              )
            : behavior.handler(ctx);
        if (isThenable(value)) {
          return this.defect(
            `behavior ${behavior.kind === 'module' ? `${behavior.file} (${behavior.exportName})` : ''} of ${op.key} returned a Promise: handlers are synchronous (schedule later work with ctx.schedule)`,
          );
        }
        if (op.validateOutput && !op.validateOutput(value)) {
          return this.defect(
            `the behavior of ${op.key} returned a value its output schema rejects: ${ajvMessages(op.validateOutput.errors, value).join('; ')}`,
            'INVALID_OUTPUT',
          );
        }
        if (tx.events.length > 0) record.events = tx.events.map(cloneJson);
        return { kind: 'ok', value: value === undefined ? null : cloneJson(value) };
      },
      { input, actorId, operationId: op.operationId, source: { operation: record.seq }, op },
    );
  }

  /** A built-in file tool on the package's folder; what it changed goes into the evidence as diffs. */
  private workspaceCall(
    op: CompiledOperation,
    record: OperationRecord,
    input: unknown,
    operation: Parameters<typeof runWorkspaceOperation>[0],
  ): OperationOutcome {
    let result: ReturnType<typeof runWorkspaceOperation>;
    try {
      result = runWorkspaceOperation(operation, this.workspace(op.packageId), input);
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return this.defect(`the built-in ${operation} of ${op.key} failed on the workspace folder: ${message}`);
    }
    if ('fail' in result) return fail(this.declared(op, result.fail.code, result.fail.message));
    if (result.changes && result.changes.length > 0) record.files = result.changes;
    return { kind: 'ok', value: result.value };
  }

  private nextKey(packageId: string, collection: string, prefix: string): string {
    const key = `${packageId}\u0000${collection}\u0000${prefix}`;
    let n = this.keyCounters.get(key) ?? 0;
    let candidate: string;
    const existing = this.state[packageId]?.[collection] ?? {};
    do candidate = `${prefix}${++n}`;
    while (Object.hasOwn(existing, candidate));
    this.keyCounters.set(key, n);
    return candidate;
  }

  private defect(message: string, code: EngineErrorCode = 'BEHAVIOR_ERROR'): OperationOutcome {
    this.hooks.onDefect?.(`World defect: ${message}`, code);
    return fail(engineError(code, message));
  }

  /**
   * Runs `body` on a draft of the package state; commits the draft, its events and its
   * scheduled consequences only if the outcome is ok. A `ctx.fail` with a declared (or
   * engine) code is an error outcome; anything else thrown is a defect.
   */
  private transaction(
    packageId: string,
    copy: 'shallow' | 'deep',
    clockMs: number,
    body: (ctx: BehaviorContext, tx: Transaction) => OperationOutcome,
    meta: {
      input: unknown;
      actorId: string;
      operationId: string;
      source: WorldEvent['source'];
      op?: CompiledOperation;
    },
  ): OperationOutcome {
    const live = this.state[packageId] ?? {};
    const draft: PackageState = copy === 'deep' ? cloneJson(live) : { ...live };
    const tx: Transaction = { events: [], scheduled: [] };
    const ctx: BehaviorContext = {
      input: meta.input,
      state: draft,
      actorId: meta.actorId,
      packageId,
      operationId: meta.operationId,
      clock: { now: () => clockMs },
      emit: (event) => {
        if (!event || typeof event !== 'object' || typeof event.type !== 'string')
          throw new TypeError('ctx.emit(event): the event needs a string "type"');
        tx.events.push(cloneJson(event));
      },
      schedule: (afterMs, what) => {
        if (!(afterMs >= 0)) throw new TypeError('ctx.schedule(afterMs, what): afterMs must be a number ≥ 0');
        tx.scheduled.push({ afterMs, what });
      },
      fail: (code, message, details) => {
        throw new BehaviorFailure(code, message, details);
      },
      random: () => this.random(`behavior:${packageId}`)(),
    };
    let outcome: OperationOutcome;
    try {
      outcome = body(ctx, tx);
    } catch (error) {
      if (error instanceof BehaviorFailure) {
        const op = meta.op;
        if (op && !op.errors.has(error.code) && !Object.hasOwn(ENGINE_ERRORS, error.code)) {
          return this.defect(
            `the behavior of ${op.key} failed with ${JSON.stringify(error.code)}, which the operation does not declare${hint(error.code, op.errors.keys())}`,
          );
        }
        if (op) return fail(this.declared(op, error.code, error.message, undefined, error.details));
        return fail({
          code: error.code,
          message: error.message ?? error.code,
          retryable: false,
          status: 500,
        });
      }
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return this.defect(`the behavior of ${meta.op?.key ?? packageId} threw ${message}`);
    }
    if (outcome.kind !== 'ok') return outcome;
    // Commit.
    this.state[packageId] = draft;
    for (const event of tx.events) this.log(packageId, event, meta.source, clockMs);
    for (const { afterMs, what } of tx.scheduled) {
      const source =
        'operation' in meta.source
          ? `#${meta.source.operation}+${afterMs}ms`
          : `${meta.source.scheduled}+${afterMs}ms`;
      this.enqueue(
        typeof what === 'function'
          ? { due: clockMs + afterMs, order: 0, packageId, kind: 'handler', handler: what, source }
          : { due: clockMs + afterMs, order: 0, packageId, kind: 'event', event: cloneJson(what), source },
      );
    }
    return outcome;
  }

  private log(
    packageId: string,
    event: WorldEventPayload,
    source: WorldEvent['source'],
    clockMs: number,
  ): void {
    this.eventLog.push({ seq: ++this.eventSeq, clockMs, packageId, source, event });
  }

  // ── Scheduled events ────────────────────────────────────────────────────────

  private enqueue(item: Scheduled): void {
    item.order = ++this.order;
    let i = this.pending.length;
    while (i > 0 && this.pending[i - 1].due > item.due) i--;
    this.pending.splice(i, 0, item);
  }

  /** Fires every scheduled item the world clock has passed, in time order. */
  settle(): void {
    if (this.pending.length === 0 || this.firingAt !== undefined) return;
    const now = this.clock.now();
    while (this.pending.length > 0 && this.pending[0].due <= now) {
      const item = this.pending.shift()!;
      this.firingAt = item.due;
      try {
        this.fire(item);
      } finally {
        this.firingAt = undefined;
      }
    }
  }

  private fire(item: Scheduled): void {
    const at = item.due;
    if (item.kind === 'event') {
      this.log(item.packageId, item.event, { scheduled: item.source }, at);
      return;
    }
    if (item.kind === 'handler') {
      this.runScheduled(item.packageId, item.handler, undefined, item.source, at);
      return;
    }
    const def = item.def;
    const source = { scheduled: def.id };
    if (def.emit) this.log(def.packageId, cloneJson(def.emit), source, at);
    if (def.apply) {
      const change = def.apply;
      const pkg = { ...(this.state[def.packageId] ?? {}) };
      const collection = { ...(pkg[change.collection] ?? {}) };
      if (change.delete) delete collection[change.key];
      else if (change.merge)
        collection[change.key] = {
          ...((collection[change.key] as object | undefined) ?? {}),
          ...cloneJson(change.merge),
        };
      else collection[change.key] = cloneJson(change.set);
      pkg[change.collection] = collection;
      this.state[def.packageId] = pkg;
    }
    const handler = def.module !== undefined ? this.definition.eventHandlers.get(def) : undefined;
    if (handler) this.runScheduled(def.packageId, handler, def.input, def.id, at);
  }

  private runScheduled(
    packageId: string,
    handler: Handler,
    input: unknown,
    source: string,
    at: number,
  ): void {
    const outcome = this.transaction(
      packageId,
      'deep',
      at,
      (ctx) => {
        const value = handler(ctx);
        if (isThenable(value))
          return this.defect(`the scheduled handler ${source} returned a Promise: handlers are synchronous`);
        return { kind: 'ok', value: null };
      },
      { input: cloneJson(input), actorId: 'world', operationId: '', source: { scheduled: source } },
    );
    if (outcome.kind === 'error') {
      this.log(
        packageId,
        { type: 'world.scheduled.failed', code: outcome.error.code, message: outcome.error.message },
        { scheduled: source },
        at,
      );
    }
  }
}

function fail(error: ToolErrorEnvelope): OperationOutcome {
  return { kind: 'error', error };
}

function hint(name: string, candidates: Iterable<string>): string {
  const all = [...candidates];
  const meant = closest(name, all);
  if (meant) return ` (did you mean ${JSON.stringify(meant)}?)`;
  return all.length > 0 ? ` (it has ${all.map((c) => JSON.stringify(c)).join(', ')})` : '';
}
