/**
 * The host's contract with the runtime that owns it (`WorldHostDeps`), with the runs it credits
 * (`RunScopeLike`, `RunOperationEntry`), and with its own serving parts (`HostView`).
 */
import type { ErrorCode } from '../../errors';
import type { CallRequest, EngineHooks, RunClaim, WorldEngine } from '../engine/engine';
import type { WorldHandle } from '../handle';
import type { WorldDefinition } from '../model';
import type { WorldHttpRouter } from '../transports/http';
import type { McpTransport } from '../transports/mcp/in-process';
import type { OperationRecord } from '../types';
import type { FileTree } from '../workspace/tree';

/** The workspace files a run starts from, to tell what it changed (see executeRun). */
export type FileSnapshot = ReadonlyMap<string, FileTree>;

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
  /** The run a call belongs to, or the envelope it is refused with (see EngineHooks.claim). */
  claim(request: Pick<CallRequest, 'packageId' | 'operationId' | 'transport'>): RunClaim;
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
  /**
   * A connected client-side transport to the MCP server of a package with the mcp binding, for
   * `@modelcontextprotocol/sdk`'s `client.connect(transport)`. Calls go as `actorId` (default:
   * the drill's actor, else the world's default actor), to the running drill trial's world if any.
   */
  mcpTransport(packageId: string, options?: { actorId?: string }): McpTransport;
}

/** Where requests go now: the running drill trial's world while one runs, else the file's. */
export interface ServingTarget {
  engine: WorldEngine | undefined;
  /** The drill trial's actor; undefined: the world's default actor. */
  actorId: string | undefined;
  router: WorldHttpRouter | undefined;
}

/** What the host's serving parts (HTTP, MCP, the served port) read of it. */
export interface HostView {
  readonly deps: WorldHostDeps;
  /** The world loaded now, if any. */
  definition(): WorldDefinition | undefined;
  /** The definition, or the error every world API gives without one. */
  require(where: string): WorldDefinition;
  target(): ServingTarget;
}

export const MISSING =
  'no world is loaded for this test file. Set testEnvironmentOptions.understudy.world in the Jest config, ' +
  'add the docblock pragma `@understudy-world <path>` to the test file, or call understudy.world.load(path).';
