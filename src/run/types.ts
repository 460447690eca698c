import type { ModelCall } from '../model/call';
import type { HttpEvidence } from '../trace/evidence';
import type { OtlpSpan } from '../trace/otlp';
import type { FileChange, OperationRecord } from '../world/types';
import type { CrashInfo } from './crash';

export type TerminalState = 'succeeded' | 'failed' | 'errored' | 'timed_out' | 'crashed' | (string & {});

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
  /**
   * The model call that requested it, as a 0-based position in the run's `modelCalls`
   * (`run.modelCalls[call.modelCallIndex]`), the same whichever tests of the file run.
   */
  modelCallIndex: number;
  /** That model call's `index` in the file's call log (counts every call of the file so far). */
  fileModelCallIndex: number;
  /** Whether a later request carried its result. */
  answered: boolean;
  /**
   * The wire cut the reply short before this call's arguments ended (see `ModelCall.cut`):
   * `rawArguments` is the part that arrived, `arguments` its whole values, and the call is
   * never `answered`.
   */
  incomplete?: true;
  /**
   * `seq`s of the world operations that served it (present when the run executed any);
   * the linking rule is in src/run/link.ts.
   */
  operations?: number[];
}

/** One span in OTLP/JSON form (traceId, spanId, parentSpanId, name, times in Unix nanoseconds, attributes). */
export type TraceSpan = OtlpSpan;

/** An operation as a run lists it: the evidence record plus its tool call and timing. */
export type RunOperation = OperationRecord & {
  /** The tool call it served (see the linking rule), if any. */
  toolCallId?: string;
  /** performance.now() when the call reached the world, and how long the world took. */
  startedAt: number;
  durationMs: number;
};

export interface Run<Input = unknown, Output = unknown> {
  input: Input;
  output: Output | undefined;
  finalMessage: string | undefined;
  /** Every tool call the model requested, in order, whether the agent ran it or not. */
  toolCalls: ToolCall[];
  /** The names of the tool calls the agent ran (sent a result back, or a world operation served), in order. */
  toolsCalled: string[];
  /** World operations executed during the run, each with the tool call it served (`toolCallId`). */
  operations: RunOperation[];
  /**
   * The workspace files the run changed (whatever wrote them: the world's file tools or the
   * agent's own), each as a unified diff; present when the world has a workspace package.
   */
  files?: FileChange[];
  modelCalls: ModelCall[];
  terminalState: TerminalState;
  error: unknown;
  durationMs: number;
  /** The run as OpenTelemetry spans (OTLP/JSON): the run, its model calls, tool calls and operations. */
  trace: TraceSpan[];
  /** Where the run stopped, when a `crash` fault stopped it (terminal state 'crashed'). */
  crash?: CrashInfo;
  /** The crashed run this one started again from (`resumeFrom`); its own `resumedFrom` goes further back. */
  resumedFrom?: Run<any, any>;
}

/** A request one of the test's own msw handlers answered, as the run (or the test) notes it. */
export type HttpExchange = Omit<HttpEvidence, 'phase'>;
