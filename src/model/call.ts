import type { ContractRule } from '../contracts/rules';
import type { Conversation, NeutralError, NeutralReply, ProviderId } from '../conversation';
import type { DialectName } from '../fixtures/stream-dialects';
import type { Fixture, FixtureSource, FixtureStreamError } from '../fixtures/types';
import type { ChaosFault } from './chaos';

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
  /** The reply the model sent (absent when it answered with an error). */
  response?: NeutralReply;
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
