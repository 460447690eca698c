import type { ContractRule } from '../contracts/rules';
import type { Conversation, NeutralError, NeutralReply, ProviderId } from '../conversation';
import type { DialectName } from '../fixtures/stream-dialects';
import type { Fixture, FixtureSource, FixtureStreamError } from '../fixtures/types';
import type { ChaosFault } from './chaos';

/**
 * Why less of a reply reached the client than was sent for it: `truncated` (the fixture's
 * `truncateAfterChunks`), `disconnected` (the connection dropped: `disconnect`,
 * `disconnectAfterMs`, or the provider's own stream in record and live modes), `malformed` (a
 * damaged event, which no client reads past; a plain body cut in half), `stream_error` (an error
 * event after the 200), `aborted` (the client went away or stopped reading).
 */
export type CutReason = 'truncated' | 'disconnected' | 'malformed' | 'stream_error' | 'aborted';

/** Where the wire cut a reply short. */
export interface ModelCallCut {
  reason: CutReason;
  /**
   * The events of the reply that reached the client whole (SSE events; event-stream messages
   * for Bedrock); 0 when nothing readable did (a plain body cut in half, a client that went
   * away before the answer).
   */
  delivered: number;
  /** The events of the whole reply, when known. */
  of?: number;
}

/** One request the mock model received, as the call log and runs keep it. */
export interface ModelCall {
  /** 0-based position in this file's model call log. */
  index: number;
  provider: ProviderId;
  protocol: string;
  url: string;
  /** The parsed wire request body. */
  request: unknown;
  conversation: Conversation;
  /** The fixture that answered, if any. */
  fixture?: Fixture;
  fixtureIndex?: number;
  fixtureSource?: FixtureSource;
  /**
   * The reply as it reached the client (absent when it answered with an error, or when nothing
   * readable of it arrived). When the wire cut it short (`cut`), this is what the client could
   * reassemble from the events it got: text that stops mid-way, tool calls marked `incomplete`,
   * the usage events that arrived.
   */
  response?: NeutralReply;
  /** The reply cut short on the wire: why, and how much of it arrived. Absent when it arrived whole. */
  cut?: ModelCallCut;
  /** The whole reply, when `cut` says less of it reached the client: the fixture's, or the provider's in record and live modes. */
  whole?: NeutralReply;
  error?: NeutralError;
  /** No fixture matched this request. */
  unmatched: boolean;
  streamed: boolean;
  /** The selected fixture's turnIndex differed from the thread's (tolerated unless strict). */
  turnIndexRelaxed?: boolean;
  /** A seeded random fault replaced or damaged the reply. */
  fault?: ChaosFault;
  /** The stream dialect the reply went out in (see `understudy.model.dialect`). */
  dialect?: DialectName;
  /** The streamed reply ended with this error event after the 200 (fixture `streamError`, chaos `streamErrorRate`). */
  streamError?: FixtureStreamError;
  /** The real provider answered (record, record-missing or live mode), not a fixture. */
  recorded?: boolean;
  /** The request contract the request (or the fixture's reply) broke, and where. */
  contract?: { rule: ContractRule; at: string };
  startedAt: number;
  durationMs: number;
  /** A judge's call (`toSatisfyJudge`): the package's own, of no run. */
  judge?: true;
  /**
   * Replay: the time the answer took on the injectable clock (its latency and stream pacing),
   * whatever `timeScale` or fake timers made of it; absent when it took none.
   */
  simulatedMs?: number;
}

/** An embedding request the mock model answered, in `understudy.model.embeddings`. */
export interface EmbeddingCall {
  protocol: string;
  provider: ProviderId;
  url: string;
  model: string;
  inputs: string[];
  /** The length of the vectors sent. */
  dimensions: number;
  /** Per input, the fixture whose vector answered it (undefined: the deterministic vector). */
  fixtures: Array<Fixture | undefined>;
  vectors?: number[][];
  error?: NeutralError;
}
