/**
 * What the sandbox runtime hands the environment about one test, as plain JSON data
 * (nothing of the test realm crosses): its agent runs with their model calls, tool
 * calls and world operations, model calls made outside any run, and the last failed
 * trajectory expectation. The trace (OTLP/JSON) is built from this.
 */
import type { MatchKeys, NeutralError, NeutralMessage, NeutralReply, NeutralTool } from '../conversation';
import type { Omissions } from './budget';

/** Where a run (or model call) happened, as the test's lifecycle goes. */
export type Phase = 'beforeAll' | 'beforeEach' | 'test' | 'afterEach' | 'afterAll' | 'file';

export interface PlainError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

export interface CallEvidence {
  index: number;
  provider: string;
  protocol: string;
  url: string;
  model: string;
  streamed: boolean;
  unmatched: boolean;
  /** The fixture's id, else `#<registration order>`. */
  fixture?: string;
  fixtureSource?: { file?: string; path?: string };
  turnIndexRelaxed?: boolean;
  fault?: string;
  matchKeys: MatchKeys;
  messages: NeutralMessage[];
  /** Messages of the request the trace left out (between its system messages and the latest ones). */
  omittedMessages?: number;
  tools: NeutralTool[];
  /** The reply as it reached the client (cut short when `cut` says so). */
  response?: NeutralReply;
  error?: NeutralError;
  /** The wire cut the reply short: why, and how many of its events reached the client whole. */
  cut?: { reason: string; delivered: number; of?: number };
  /** The whole reply that was sent for a cut one. */
  whole?: NeutralReply;
  /** performance.now() in the test realm. */
  startedAt: number;
  durationMs: number;
  phase: Phase;
}

export interface ToolCallEvidence {
  id: string;
  name: string;
  arguments: unknown;
  result?: unknown;
  error?: unknown;
  /** Position of the model call that requested it in its run's `modelCalls`. */
  modelCallIndex: number;
  /** That model call's `index` in the file (the `index` of its CallEvidence). */
  fileModelCallIndex: number;
  answered: boolean;
  /** Its arguments never ended on the wire: `arguments` is what arrived. */
  incomplete?: boolean;
}

/** A world operation, as far as the trace cares; the world adds fields, all are kept. */
export interface OperationEvidence {
  seq?: number;
  packageId?: string;
  operationId?: string;
  input?: unknown;
  outcome?: unknown;
  override?: unknown;
  toolCallId?: string;
  startedAt?: number;
  durationMs?: number;
  [key: string]: unknown;
}

/** An HTTP request one of the test's own msw handlers answered (a step of a run, or of the test). */
export interface HttpEvidence {
  method: string;
  url: string;
  /** The response status; 0 when the handler answered with a network error (`HttpResponse.error()`). */
  status: number;
  /** The handler that answered, as msw names it (`GET https://weather.example.test/now`). */
  handler?: string;
  /** Where the handler came from: `understudy.http.use`, `setupServer`, or the `handlers` option. */
  source: string;
  /** performance.now() in the test realm. */
  startedAt: number;
  durationMs: number;
  phase: Phase;
}

export interface RunEvidence {
  /** 0-based position among the runs of the test. */
  index: number;
  kind: string;
  phase: Phase;
  /** Still running when the test ended (e.g. the test timed out). */
  incomplete: boolean;
  input?: unknown;
  output?: unknown;
  finalMessage?: string;
  terminalState?: string;
  error?: PlainError;
  startedAt: number;
  durationMs: number;
  modelCalls: CallEvidence[];
  toolCalls: ToolCallEvidence[];
  operations: OperationEvidence[];
  /** Requests the test's own msw handlers answered during the run (absent in traces without any). */
  httpRequests?: HttpEvidence[];
  /** Workspace files the run changed, each with its unified diff. */
  files?: Array<{ packageId?: string; path: string; change: string; diff: string }>;
  /** A drill's build (with per-test rules) and seed, where the run came from a drill. */
  drill?: { name?: string; build?: unknown; seed?: unknown; verdict?: unknown };
  /** Steps of the run the trace left out to stay within its budget. */
  omitted?: { modelCalls: number; toolCalls: number; operations: number; httpRequests?: number };
}

/** One failed trajectory assertion, as the matcher saw it. */
export interface ExpectationEvidence {
  matcher: string;
  negated: boolean;
  mode?: string;
  args?: string;
  expected: Array<{ name: string; args?: unknown }>;
  actual: Array<{ name: string; args?: unknown }>;
  /** Expected and received side by side; `ok: false` rows break the expectation. */
  rows: Array<{ expected?: number; received?: number; ok: boolean }>;
  /** The row index where the sequence first diverged. */
  divergence?: number;
  message: string;
  /** Which run of the test was asserted on, when it is one of them. */
  runIndex?: number;
  /** Rows the trace left out (a long sequence keeps its start, its divergence and its end). */
  omittedRows?: number;
  /** What the expectation stands for, when the code that made it named it (`negative.forbiddenOrders[0] of task …`). */
  source?: string;
}

/** One turn of a socket session: what the user said or typed, then what the assistant did until the next. */
export interface SessionTurnEvidence {
  /** 0-based position among the session's turns. */
  index: number;
  /** The user's input that opened the turn; absent when the client asked for an answer with none new. */
  user?: {
    via: 'audio' | 'text';
    /** What the session heard (a transcript) or read; null for speech it could not make out. */
    text: string | null;
  };
  /** What the assistant said, as it reached the user (an interrupted answer stops where it was cut). */
  assistant?: string;
  /** The turn's model calls, by their `index` in the file, in order. */
  modelCalls: number[];
  /**
   * The tool calls its model calls asked for, in order, with the output the client sent back; `at`:
   * the characters of `assistant` said before the call was made.
   */
  toolCalls: Array<{ id: string; name: string; arguments: string; output?: unknown; at: number }>;
  /** The answer was cut off: by whom, and how much of it the user had heard. */
  interrupted?: {
    by: 'user' | 'client';
    /** ms of the answer's audio played before the cut, when the client said (a truncation). */
    heardMs?: number;
    /** Characters of the answer that reached the user, of how many. */
    heardChars?: number;
    ofChars?: number;
  };
  /** What went wrong in the turn: a model error, no fixture, a cut reply, a refused event, the socket dropped. */
  faults?: string[];
  /** performance.now() in the test realm. */
  startedAt: number;
  durationMs: number;
}

/** One WebSocket session a client opened to a served host (OpenAI Realtime, Gemini Live, the Responses WebSocket mode). */
export interface SessionEvidence {
  /** 0-based position among the test's sessions. */
  index: number;
  url: string;
  protocol: string;
  /** RFC 6455 close code; absent while open. */
  closeCode?: number;
  closeReason?: string;
  /** Who closed it: the client, the server (the protocol, a fault), or the runtime at the file's end. */
  closedBy?: 'client' | 'server' | 'file end';
  /** It ended with no close frame (the client saw `1006`). */
  dropped?: boolean;
  turns: SessionTurnEvidence[];
  /** Turns the trace left out (between the first and the latest) to stay within its budget. */
  omittedTurns?: number;
  /** performance.now() in the test realm. */
  startedAt: number;
  durationMs: number;
}

export interface TestEvidence {
  runs: RunEvidence[];
  /** Model calls of the test that belong to no run (an SDK called directly in the test). */
  looseCalls: CallEvidence[];
  /** Requests the test's own msw handlers answered outside any run. */
  looseHttp?: HttpEvidence[];
  /** The WebSocket sessions of the test, in the order they opened (absent in traces without any). */
  sessions?: SessionEvidence[];
  expectation?: ExpectationEvidence;
  /** performance.timeOrigin of the test realm, to turn its clock into wall time. */
  timeOrigin: number;
  /** What the trace does not hold: steps beyond its budget, and what a model reset let go. */
  omitted?: Omissions;
}

/** Per-file counts for the reporter. */
export interface FileStats {
  agentRuns: number;
  /** Model calls answered from fixtures, per provider. */
  replayed: Record<string, number>;
  operations: number;
  unmatched: number;
  staleCassettes: string[];
  /** Model calls recorded from the provider (record modes, recording harnesses), per provider. */
  recorded?: Record<string, number>;
  /** Cassettes written at the end of the file (record modes), and what changed in each. */
  cassettes?: Array<{
    path: string;
    state: 'new' | 'updated' | 'unchanged';
    added: number;
    removed: number;
    unchanged: number;
    kept: number;
  }>;
}
