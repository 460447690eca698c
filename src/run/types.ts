import type { ContractRule } from '../contracts/rules';
import type { Conversation, NeutralError, NeutralReply, ProviderId } from '../conversation';
import type { Fixture, FixtureSource, FixtureStreamError } from '../fixtures/types';
import type { ChaosFault } from '../model/chaos';
import type { DialectName } from '../providers/dialects/names';
import type { OtlpSpan } from '../trace/otlp';
import type { RunOperation } from '../world/link';

export type TerminalState = 'succeeded' | 'failed' | 'errored' | 'timed_out' | (string & {});

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

/** A tool call the model asked for, joined with the result the agent sent back. */
export interface ToolCall {
  id: string;
  name: string;
  /** Arguments parsed to an object (the raw text when they are not JSON). */
  arguments: Record<string, unknown>;
  /** The raw argument text as the model sent it. */
  rawArguments: string;
  /** The tool result the agent sent back: JSON-parsed when it is JSON, else text. */
  result?: unknown;
  /** Set when the agent reported the result as an error. */
  error?: unknown;
  /** The model call that requested it. */
  modelCallIndex: number;
  /** Whether a later request carried its result. */
  answered: boolean;
  /**
   * `seq`s of the world operations that served it (present when the run executed any);
   * the linking rule is in src/world/link.ts.
   */
  operations?: number[];
}

/** One span in OTLP/JSON form (traceId, spanId, parentSpanId, name, times in Unix nanoseconds, attributes). */
export type TraceSpan = OtlpSpan;

export interface Run<Input = unknown, Output = unknown> {
  input: Input;
  output: Output | undefined;
  finalMessage: string | undefined;
  toolCalls: ToolCall[];
  toolsCalled: string[];
  /** World operations executed during the run, each with the tool call it served (`toolCallId`). */
  operations: RunOperation[];
  modelCalls: ModelCall[];
  terminalState: TerminalState;
  error: unknown;
  durationMs: number;
  /** The run as OpenTelemetry spans (OTLP/JSON): the run, its model calls, tool calls and operations. */
  trace: TraceSpan[];
}
