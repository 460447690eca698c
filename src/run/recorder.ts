/**
 * What a run records while it goes on. The file's context (./context.ts) names the run a call
 * belongs to, and the model server, the world's door and the test's msw handlers add to it.
 */

import type { ModelCall } from '../model/call';
import type { UnderstudyMode } from '../record/mode';
import type { RunOperationEntry } from '../world/door';
import type { CrashState } from './crash';
import type { HttpExchange } from './types';

/** Collects the model calls made inside one `understudy.run` / harness run. */
export interface RunRecorder {
  calls: ModelCall[];
  /** A recording or live harness run: its calls go to the provider whatever the file's mode. */
  mode?: UnderstudyMode;
  /** Captures of streamed provider replies still being read; the run waits for them. */
  pending?: Promise<unknown>[];
  /** World operations executed inside the run (the world's door pushes them). */
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
