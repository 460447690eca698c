import type { ContractRule } from '../contracts/rules';
import type { Conversation, NeutralError, NeutralReply, ProviderId } from '../conversation';
import type { Fixture, FixtureSource } from '../fixtures/types';
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
  /** The real provider answered (record, record-missing or live mode), not a fixture. */
  recorded?: boolean;
  /** The request contract the request (or the fixture's reply) broke, and where. */
  contract?: { rule: ContractRule; at: string };
  startedAt: number;
  durationMs: number;
}
