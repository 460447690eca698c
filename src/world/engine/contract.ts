/** What the engine is given and gives back: a call, its result, a setup, the hooks of its host. */
import type { CompiledBehavior } from '../behaviors';
import type { EngineErrorCode } from '../errors';
import type {
  OperationOutcome,
  OperationRecord,
  ScenarioDef,
  ToolErrorEnvelope,
  ToolOverride,
  Transport,
} from '../types';
import type { WorkspaceStore } from '../workspace/workspace';

export interface CallRequest {
  packageId: string;
  operationId: string;
  input: unknown;
  /** Default: the world's default actor. */
  actorId?: string;
  idempotencyKey?: string;
  transport: Transport;
  /** `sync` callers cannot wait: latency moves the world clock at once. Default `async`. */
  mode?: 'sync' | 'async';
}

export interface CallResult {
  /** Absent for a call that was refused before it ran (it belongs to no run: see EngineHooks.claim). */
  record?: OperationRecord;
  outcome: OperationOutcome;
  /** Simulated latency an async transport waits before answering. */
  delayMs: number;
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

/** Which run a call belongs to; a refused call belongs to none and runs nothing. */
export type RunClaim =
  | { run?: object; refused?: undefined }
  | { refused: ToolErrorEnvelope; run?: undefined };

export interface EngineHooks {
  /**
   * The run a call belongs to (an object identifying it), for per-run budgets and evidence; or the
   * envelope it is refused with (a call of a run that has ended), before anything of it runs.
   */
  claim?(request: Pick<CallRequest, 'packageId' | 'operationId' | 'transport'>): RunClaim;
  /**
   * Every operation made inside a run (`run` is what claim named), as it lands in the
   * evidence; `toolNames` are the operation's; `startedAt` is performance.now() when the call arrived.
   */
  onOperation?(record: OperationRecord, toolNames: readonly string[], run: object, startedAt: number): void;
  /**
   * A call that passed permissions, input validation and budgets: a fault to answer it with
   * instead (a fault sweep's), or undefined to go on.
   */
  inject?(call: {
    packageId: string;
    operationId: string;
    input: unknown;
    declared: readonly string[];
    transport: Transport;
  }): InjectedFault | undefined;
  /** A defect of the world itself (a behavior threw, returned invalid output…): fails the test. */
  onDefect?(message: string, code: EngineErrorCode): void;
  /** Where the workspace folders this engine makes are tracked, so the file deletes what is left. */
  workspaces?: WorkspaceStore;
}

/** A fault answered instead of the operation: one of its declared errors, or a timeout. */
export type InjectedFault = { kind: 'error'; code: string } | { kind: 'timeout'; ms: number };
