/**
 * The world's one door for a tool call (the contract is ../door.ts). mockTool, the HTTP routes,
 * MCP (Streamable HTTP and in-process), the served port and the scenario fakes all come in here,
 * and only here is decided which run a call belongs to (or that it is refused), what the engine
 * answers, how long the answer waits, and that a run that crashed never gets it. One synchronous
 * core (`enter`) serves both entries: `callTool` for callers that can wait, `callToolSync` for
 * mockTool's sync mode, which cannot. `WorldHost` (./host.ts) is this door with the file's world.
 */
import type { ErrorCode } from '../../errors';
import type { CallVia, RunScopeLike, ToolDoor, WorldContext } from '../door';
import type {
  CallMode,
  CallResult,
  InjectedFault,
  InjectionPoint,
  ToolCall,
  WorldEngine,
} from '../engine/engine';
import { WorldError } from '../errors';
import type { OperationRecord, Transport } from '../types';
import { MISSING } from './contract';

export abstract class WorldDoor implements ToolDoor {
  constructor(readonly context: WorldContext) {}

  /** The engine a call reaches unless it names its own: the running drill trial's, else the file's. */
  protected abstract running(): WorldEngine | undefined;

  /**
   * A tool call of a transport that can wait: its answer after its latency (on the runtime clock,
   * ended by `via.signal`); never, when its run has crashed.
   */
  callTool(request: ToolCall, via: CallVia): Promise<CallResult<RunScopeLike>> {
    const result = this.enter(request, via, 'async');
    const answered =
      result.delayMs > 0
        ? this.context.clock.sleep(result.delayMs, via.signal).then(() => result)
        : Promise.resolve(result);
    return this.gate(answered, result.run);
  }

  /**
   * A tool call of a caller that cannot wait (mockTool's sync mode): latency moves the world clock
   * at once instead; a run that crashed gets its CrashError thrown instead of the answer.
   */
  callToolSync(request: ToolCall, via: CallVia): CallResult<RunScopeLike> {
    const result = this.enter(request, via, 'sync');
    const crash = result.run?.crash;
    if (crash?.fired) throw crash.error;
    return result;
  }

  /**
   * An answer that failed before the call reached the world (an expired binding, a caller's own
   * mapping that threw), or of a call served outside the engine (a tool fake): as every answer, it
   * waits `delayMs`, then never comes if the current code's run crashed.
   */
  answer<T>(delayMs: number, settle: () => T): Promise<T> {
    return this.hold(
      delayMs > 0 ? this.context.clock.sleep(delayMs).then(settle) : Promise.resolve().then(settle),
    );
  }

  /** What `work` answers the current code, unless its run has crashed (then it never settles). */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.gate(work, this.context.currentRun());
  }

  /** Fails the current test: a request the world has no answer for (an unknown route or tool). */
  fail(code: ErrorCode, message: string): void {
    this.context.fail(code, message);
  }

  /** For a caller that cannot wait: throws the current code's run's CrashError if it crashed. */
  stopIfCrashed(): void {
    const crash = this.context.currentRun()?.crash;
    if (crash?.fired) throw crash.error;
  }

  /** A sweep's fault for a call served outside the engine (a tool fake), if the sweep injects one. */
  inject(point: InjectionPoint): InjectedFault | undefined {
    return this.context.session?.toolCall?.(point);
  }

  /**
   * A call served outside the engine (a scenario's tool fake), logged in `engine`'s evidence and,
   * when the current code belongs to a run that is not over, in that run's operations.
   */
  logExternal(
    engine: WorldEngine,
    call: Parameters<WorldEngine['logExternal']>[0],
    toolNames: readonly string[],
    startedAt: number,
  ): OperationRecord {
    const claim = this.claim(call.packageId, call.operationId, call.transport);
    return engine.logExternal(call, toolNames, startedAt, claim.run);
  }

  /** The core of both entries: the run named (or the call refused), then the engine's answer. */
  private enter(request: ToolCall, via: CallVia, mode: CallMode): CallResult<RunScopeLike> {
    const engine = via.engine ?? this.runningOrMissing();
    const claim = this.claim(request.packageId, request.operationId, via.transport);
    if (!claim.refused) return engine.call(request, via.transport, mode, claim.run);
    // Not an operation's failure: a failure of the test (see docs/errors.md, runs), answered as the
    // engine's are. It touches no state and leaves no evidence: it belongs to no run or test now.
    const { code, status, message } = claim.refused;
    return { outcome: { kind: 'error', error: { code, message, retryable: false, status } }, delayMs: 0 };
  }

  private claim(packageId: string, operationId: string, transport: Transport) {
    return this.context.claim(
      () => `a world operation (${packageId}/${operationId}, transport: ${transport})`,
    );
  }

  /** The crash gate: a run that crashed never gets the answer. */
  private gate<T>(work: Promise<T>, run: RunScopeLike | undefined): Promise<T> {
    const crash = run?.crash;
    return crash ? crash.hold(work) : work;
  }

  private runningOrMissing(): WorldEngine {
    const engine = this.running();
    if (!engine) throw new WorldError('WORLD_MISSING', `understudy.world: ${MISSING}`);
    return engine;
  }
}
