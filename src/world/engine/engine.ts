/**
 * The world engine: ONE call path for every transport (mockTool, HTTP, MCP, the served port). The
 * transports reach it through the world's one door, `WorldHost.callTool` (../host/door.ts), which
 * names the run a call belongs to before the engine sees it.
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
import { WorldClock } from '../clock';
import { engineError, WorldError } from '../errors';
import { type CompiledOperation, opKey, type WorldDefinition } from '../model';
import type {
  BudgetDef,
  OperationOutcome,
  OperationRecord,
  PackageState,
  ScheduledEventDef,
  Transport,
  WorldEvent,
  WorldState,
} from '../types';
import { cloneJson, deepEqual } from '../values';
import type { FileTree } from '../workspace/tree';
import { Workspace, WorkspaceStore } from '../workspace/workspace';
import { runBehavior } from './behavior';
import type { CallMode, CallResult, EngineHooks, EngineSetup, ToolCall } from './contract';
import { type CompiledFault, faultsByOperation, fireFaults } from './faults';
import { inputRefusal, keyFromInput, permissionRefusal, spendBudget } from './gates';
import { declared, fail, hint } from './outcomes';
import { RuleSet } from './rules';
import { settle } from './scheduled';
import { type EngineCore, freshState } from './state';
import { enqueue } from './transaction';

export type {
  CallMode,
  CallResult,
  EngineHooks,
  EngineSetup,
  InjectedFault,
  InjectionPoint,
  ToolCall,
} from './contract';

export class WorldEngine {
  readonly clock = new WorldClock();
  readonly seed: number;
  readonly rules: RuleSet;
  private readonly faultsByOp: ReadonlyMap<string, CompiledFault[]>;
  private readonly scheduledDefs: readonly ScheduledEventDef[];
  private readonly budgets: readonly BudgetDef[];
  /** What the steps share; `core.state` is what a whole reset replaces (with the clock and rule counts). */
  private readonly core: EngineCore;
  /** Workspace folders, made when first used (most tests of a file never touch one). */
  private workspaces = new Map<string, Workspace>();
  private readonly workspaceStore: WorkspaceStore;

  constructor(
    readonly definition: WorldDefinition,
    readonly setup: EngineSetup = {},
    hooks: EngineHooks = {},
  ) {
    this.seed = setup.seed ?? definition.seed;
    this.workspaceStore = hooks.workspaces ?? new WorkspaceStore();
    this.core = {
      definition,
      clock: this.clock,
      hooks,
      seed: this.seed,
      state: freshState(),
      firingAt: undefined,
    };
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
    this.faultsByOp = faultsByOperation(definition, setup);
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
      for (const id of set) this.core.state.world[id] = this.initialStateOf(id);
      for (const id of set) this.disposeWorkspace(id);
      this.rules.resetCounts(set);
      for (const [key, list] of this.faultsByOp) {
        if (set.has(key.slice(0, key.indexOf('/'))))
          for (const f of list) this.core.state.faultCounts.delete(f.id);
      }
      for (const [key, receipt] of this.core.state.receipts)
        if (set.has(receipt.packageId)) this.core.state.receipts.delete(key);
      for (const key of [...this.core.state.keyCounters.keys()])
        if (set.has(key.slice(0, key.indexOf('\u0000')))) this.core.state.keyCounters.delete(key);
      this.core.state.pending = this.core.state.pending.filter(
        (p) => p.kind === 'definition' || !set.has(p.packageId),
      );
      return;
    }
    const state = freshState();
    for (const id of this.definition.packages.keys()) state.world[id] = this.initialStateOf(id);
    this.core.state = state;
    this.dispose();
    this.rules.resetCounts();
    this.clock.reset();
    for (const def of this.scheduledDefs)
      enqueue(this.core, { due: def.atMs, order: 0, packageId: def.packageId, kind: 'definition', def });
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
    settle(this.core);
    return cloneJson(this.core.state.world);
  }

  get operations(): readonly OperationRecord[] {
    settle(this.core);
    return this.core.state.evidence;
  }

  /** The evidence as it is, without firing due events (for counters that must not change anything). */
  get rawOperations(): readonly OperationRecord[] {
    return this.core.state.evidence;
  }

  get events(): readonly WorldEvent[] {
    settle(this.core);
    return this.core.state.eventLog;
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
    settle(this.core);
    const op = this.operation(request.packageId, request.operationId);
    const actorId = request.actorId ?? this.definition.defaultActor;
    const clockMs = this.clock.now();
    const input = cloneJson(request.input);
    const record: OperationRecord = {
      seq: ++this.core.state.seq,
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
    this.core.state.evidence.push(record);
    if (run) this.core.hooks.onOperation?.(record, op.toolNames, run, startedAt);
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
    const denied = permissionRefusal(this.definition, op, actorId);
    if (denied) return fail(denied);
    // 2. Input validation
    const invalid = inputRefusal(op, input);
    if (invalid) return fail(invalid);
    // 3. Budgets
    const exceeded = spendBudget(this.core, this.budgets, op, actorId, run);
    if (exceeded) return fail(exceeded);
    // 3½. An injected fault (a fault sweep's) answers instead of everything below.
    const injected = this.core.hooks.inject?.({
      packageId: op.packageId,
      operationId: op.operationId,
      input,
      declared: [...op.errors.keys()],
      transport,
    });
    if (injected) {
      record.faults = [{ id: 'injected', kind: injected.kind }];
      if (injected.kind === 'error') return fail(declared(op, injected.code));
      delay(injected.ms);
      return fail(
        engineError(
          'TIMEOUT',
          `${op.key} timed out${injected.ms ? ` after ${injected.ms} ms` : ''} (an injected fault)`,
        ),
      );
    }
    // 4. Idempotency: a repeated successful key returns its receipt before any override is chosen.
    const key = request.idempotencyKey ?? keyFromInput(op, input);
    let receiptKey: string | undefined;
    if (key !== undefined) {
      record.idempotencyKey = key;
      receiptKey = `${op.key}\u0000${key}`;
      const receipt = this.core.state.receipts.get(receiptKey);
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
          outcome = { kind: 'error', error: declared(op, o.code, o.message, o.retryable, o.details) };
      }
    }
    // 6. Faults on the normal path
    const faults = this.faultsByOp.get(op.key);
    if (!outcome && faults) outcome = fireFaults(this.core, faults, op, record, input, actorId, delay);
    // 7–8. The behavior in a transaction, then output validation.
    outcome ??= runBehavior(
      this.core,
      this.setup.behaviorOverrides?.get(op.key) ?? op.behavior,
      op,
      record,
      input,
      actorId,
      (packageId) => this.workspace(packageId),
    );
    if (outcome.kind === 'ok' && receiptKey !== undefined) {
      this.core.state.receipts.set(receiptKey, {
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
      seq: ++this.core.state.seq,
      packageId: call.packageId,
      operationId: call.operationId,
      input: call.input,
      actorId: call.actorId ?? this.definition.defaultActor,
      transport: call.transport,
      outcome: call.outcome,
      ...(call.faults && { faults: call.faults }),
      clockMs: this.clock.now(),
    };
    this.core.state.evidence.push(record);
    if (run) this.core.hooks.onOperation?.(record, toolNames, run, startedAt);
    return record;
  }

  /** Fires every scheduled item the world clock has passed, in time order. */
  settle(): void {
    settle(this.core);
  }
}
