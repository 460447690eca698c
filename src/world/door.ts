/**
 * The contract of the world's one door for a tool call (implemented by `WorldHost`, ./host/door.ts):
 * what a transport hands it (`CallVia`), what it reads of the test file it belongs to
 * (`WorldContext`, one object: the file's context, src/run/context.ts), and the runs it credits.
 * Types only, so every transport can name the door without importing the host.
 */
import type { ErrorCode } from '../errors';
import type { CallResult, InjectedFault, InjectionPoint, ToolCall, WorldEngine } from './engine/engine';
import type { OperationRecord, Transport } from './types';

/** One operation as a run keeps it (see link.ts). */
export interface RunOperationEntry {
  record: OperationRecord;
  /** File-wide index of the run's last model call before the operation (-1: none yet). */
  afterModelCall: number;
  toolNames: readonly string[];
  startedAt: number;
  durationMs: number;
}

/** A crash fault of a run (src/run/crash.ts), as the door holds its answers. */
export interface CrashLike {
  readonly fired: boolean;
  /** The CrashError, once it fired. */
  readonly error: unknown;
  /** Told of every operation of its run (it may fire after one). */
  afterOperation(record: OperationRecord): void;
  /** What `work` answers, unless the run crashed by then (it then never settles). */
  hold<T>(work: Promise<T>): Promise<T>;
}

/** A run as the world sees it (src/run/recorder.ts's RunRecorder). */
export interface RunScopeLike {
  calls: ReadonlyArray<{ index: number }>;
  operations?: RunOperationEntry[];
  crash?: CrashLike;
}

/** Why a call belongs to no run and is refused (its test has been failed already). */
export interface CallRefusal {
  code: string;
  status: number;
  message: string;
}

/**
 * What the world reads of the test file it belongs to, all through one object (the file's
 * context): the run a call belongs to, the clock, the test running, the sweep running, and where
 * a failure goes.
 */
export interface WorldContext {
  /**
   * The run a call belongs to (undefined outside runs), or why it is refused (a call of a run that
   * has ended, or of a concurrent test): its test has been failed already. `what` names the call.
   */
  claim(
    what: () => string,
  ): { run: RunScopeLike | undefined; refused?: undefined } | { refused: CallRefusal; run?: undefined };
  /** The run the current code belongs to (its async context's, else the only active one), if any. */
  currentRun(): RunScopeLike | undefined;
  /** Waits simulated latency: Jest's fake timers, or real time × timeScale. */
  readonly clock: { sleep(ms: number, signal?: AbortSignal): Promise<void> };
  /** Fails the current test (or the file, outside tests), whatever the agent made of the answer. */
  fail(code: ErrorCode, message: string): void;
  /** The running test's name; undefined in hooks outside tests and at file level. */
  readonly test: string | undefined;
  /** A sweep or provider matrix running the test body again: the fault it answers a call with, if any. */
  readonly session?: { toolCall?(point: InjectionPoint): InjectedFault | undefined };
}

/** How a call reaches the door: its transport, and what it may bring. */
export interface CallVia {
  /** What carries it (the evidence names it). */
  readonly transport: Transport;
  /** Aborted when the caller gives up (an HTTP client): the latency wait ends with it. */
  readonly signal?: AbortSignal;
  /** The engine the call reaches (a binding's); default: the running world's, a drill trial's while one runs. */
  readonly engine?: WorldEngine;
}

/** The door as its transports use it (see WorldHost for what each entry does). */
export interface ToolDoor {
  callTool(request: ToolCall, via: CallVia): Promise<CallResult<RunScopeLike>>;
  callToolSync(request: ToolCall, via: CallVia): CallResult<RunScopeLike>;
  answer<T>(delayMs: number, settle: () => T): Promise<T>;
  hold<T>(work: Promise<T>): Promise<T>;
  stopIfCrashed(): void;
  /** Fails the current test: a request the world has no answer for (an unknown route or tool). */
  fail(code: ErrorCode, message: string): void;
}
