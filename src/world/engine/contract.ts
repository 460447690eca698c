/** What the engine is given and gives back: a call, its result, a setup, the hooks of its host. */
import type { CompiledBehavior } from '../behaviors';
import type { EngineErrorCode } from '../errors';
import type { OperationOutcome, OperationRecord, ScenarioDef, ToolOverride, Transport } from '../types';
import type { WorkspaceStore } from '../workspace/workspace';

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
