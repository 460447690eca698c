/**
 * What runs need of the per-file runtime, so that this layer never imports it: the sandbox
 * runtime (src/sandbox/runtime.ts) implements these, and the public entry points
 * (src/understudy.ts, golden tasks, drills) hand it in.
 */

import type { ErrorCode } from '../errors';
import type { ModelCall } from '../model/call';
import type { MockModel } from '../model/mock-model';
import type { UnderstudyMode } from '../record/mode';
import type { Recording } from '../record/recording';
import type { FileSnapshot, RunOperationEntry } from '../world/host';
import type { FileChange } from '../world/types';
import type { CrashState } from './crash';
import type { EvidenceLog } from './evidence';
import type { OutcomeWatch } from './outcomes';
import type { RunScope } from './scope';
import type { RunSession } from './session';
import type { HttpExchange } from './types';

/** Collects the model calls made inside one `understudy.run` / harness run. */
export interface RunRecorder {
  calls: ModelCall[];
  /** A recording or live harness run: its calls go to the provider whatever the file's mode. */
  mode?: UnderstudyMode;
  /** Captures of streamed provider replies still being read; the run waits for them. */
  pending?: Promise<unknown>[];
  /** World operations executed inside the run (the file's world pushes them). */
  operations?: RunOperationEntry[];
  /** Requests the test's own msw handlers answered inside the run. */
  http?: HttpExchange[];
  /** The run's crash fault: where it stops, and the gate its answers pass. */
  crash?: CrashState;
  /**
   * Streamed replies of the run still going out. When the run ends, each is settled: what had
   * not reached the agent by then never did, within the run (a client that stopped reading
   * without a word, or one that went away before the server could tell).
   */
  inflight?: Array<{ settle(): void }>;
}

export interface RunDeps {
  /** What the current test did, for traces and the reporter. */
  readonly evidence: EvidenceLog;
  /** Which run a call belongs to. */
  readonly runs: RunScope<RunRecorder>;
  /** Runs that ended errored or timed out, until the test that made them looked. */
  readonly outcomes: OutcomeWatch;
  /** Whether a test is running (not a hook or the file's top level). */
  readonly inTest: boolean;
  /** The file's world, for the workspace files a run changed. */
  readonly world?: {
    fileSnapshot(): FileSnapshot | undefined;
    fileChanges(snapshot: FileSnapshot): FileChange[];
  };
  /** A sweep or provider matrix running the test body again (see ./session.ts). */
  readonly session?: RunSession;
  /** Fails the current test (or the file, outside tests) with this code, whatever the agent caught. */
  fail(code: ErrorCode, message: string): void;
}

/** What a harness needs besides: the file's mock model and its recording. */
export interface HarnessDeps extends RunDeps {
  readonly model: MockModel;
  readonly recording: Recording;
}
