/**
 * Every attribute a trace carries, its type and what it means: the one table the OTLP writer
 * (./otlp.ts) and the readers (./read.ts and the views over it) take attribute names from, and the
 * attribute list of docs/traces.md is generated from (`npm run docs`; a test fails when the page and
 * this table differ). A span's fields are named by this table's keys, never by the attribute's
 * text, so renaming an attribute here renames it for the writer and every reader at once, and a
 * reader of a field the table does not have fails to compile. No imports, so the docs script can
 * load it with Node's type stripping.
 */

/**
 * How a value is written: `json` is JSON text of a structure (`parsed()` in ./read.ts reads it
 * back), `scalar` a string, number or boolean as the world gave it.
 */
export type AttributeType = 'string' | 'int' | 'number' | 'bool' | 'string[]' | 'json' | 'scalar';

/** Where an attribute appears: a span of that kind, the trace's resource, or an exception event. */
export type AttributeWhere =
  | 'test'
  | 'run'
  | 'model'
  | 'tool'
  | 'operation'
  | 'http'
  | 'session'
  | 'turn'
  | 'resource'
  | 'exception';

export interface AttributeInfo {
  /** The attribute's name in the OTLP/JSON trace. */
  name: string;
  type: AttributeType;
  on: readonly AttributeWhere[];
  /** What it says, in one sentence. */
  meaning: string;
}

export const TRACE_ATTRIBUTES = {
  // ── the test ──
  serviceName: {
    name: 'service.name',
    type: 'string',
    on: ['resource'],
    meaning: 'Always `jest-understudy`.',
  },
  testFile: {
    name: 'test.file',
    type: 'string',
    on: ['resource', 'test'],
    meaning: "The test file, relative to Jest's rootDir.",
  },
  testName: {
    name: 'test.name',
    type: 'string',
    on: ['resource', 'test'],
    meaning: 'The test, `describe > … > test`.',
  },
  testStatus: { name: 'test.status', type: 'string', on: ['test'], meaning: '`passed` or `failed`.' },
  runs: { name: 'understudy.runs', type: 'int', on: ['test'], meaning: 'How many agent runs the test made.' },
  expectation: {
    name: 'understudy.expectation',
    type: 'json',
    on: ['test'],
    meaning:
      'The failed trajectory assertion: expected and actual steps side by side, and where they diverged.',
  },
  omitted: {
    name: 'understudy.omitted',
    type: 'json',
    on: ['test'],
    meaning: 'What the trace left out to stay within its budget, and what `understudy.model.reset()` let go.',
  },
  exceptionType: {
    name: 'exception.type',
    type: 'string',
    on: ['exception'],
    meaning: "The error's name.",
  },
  exceptionMessage: {
    name: 'exception.message',
    type: 'string',
    on: ['exception'],
    meaning: "The error's message.",
  },
  exceptionStacktrace: {
    name: 'exception.stacktrace',
    type: 'string',
    on: ['exception'],
    meaning: "The error's stack.",
  },

  // ── every step ──
  operationName: {
    name: 'gen_ai.operation.name',
    type: 'string',
    on: ['run', 'model', 'tool'],
    meaning: '`invoke_agent`, `chat` or `execute_tool`: what kind of step the span is.',
  },
  phase: {
    name: 'understudy.phase',
    type: 'string',
    on: ['run', 'model', 'http', 'exception'],
    meaning: 'Where in the test it happened: `test`, a hook (`beforeEach`…) or `file`.',
  },
  outcome: {
    name: 'understudy.outcome',
    type: 'string',
    on: ['run', 'model', 'tool', 'operation', 'http', 'session', 'turn'],
    meaning:
      "The step's outcome in one word: a run's terminal state; `replied`, `unmatched`, `error` or `cut`; `ok`, `error`, `incomplete` or `unanswered`; an operation's kind; an HTTP status; a session's `closed`, `dropped` or `open`; a turn's `answered`, `interrupted`, `failed` or `unanswered`.",
  },
  durationMs: {
    name: 'understudy.duration_ms',
    type: 'number',
    on: ['run', 'model', 'tool', 'http', 'session', 'turn'],
    meaning: 'How long the step took by the test realm’s clock, in milliseconds.',
  },
  url: {
    name: 'url.full',
    type: 'string',
    on: ['model', 'http', 'session'],
    meaning: 'The URL the request went to (the socket the client opened, for a session).',
  },
  errorType: {
    name: 'error.type',
    type: 'string',
    on: ['model', 'http'],
    meaning:
      'Why the step failed: `unmatched`, the error type the model answered with, `network_error` or the HTTP status.',
  },

  // ── an agent run ──
  runIndex: {
    name: 'understudy.run.index',
    type: 'int',
    on: ['run'],
    meaning: "The run's position among the test's runs, from 0.",
  },
  runKind: {
    name: 'understudy.run.kind',
    type: 'string',
    on: ['run'],
    meaning: 'What made the run: `run` (`understudy.run`), a harness, `drill`…',
  },
  runIncomplete: {
    name: 'understudy.run.incomplete',
    type: 'bool',
    on: ['run'],
    meaning: 'The run was still going when the test ended.',
  },
  runInput: { name: 'understudy.run.input', type: 'json', on: ['run'], meaning: "The run's input." },
  runOutput: { name: 'understudy.run.output', type: 'json', on: ['run'], meaning: "The run's output." },
  runFiles: {
    name: 'understudy.run.files',
    type: 'json',
    on: ['run'],
    meaning: 'Workspace files the run changed, each with its unified diff.',
  },
  finalMessage: {
    name: 'understudy.final_message',
    type: 'string',
    on: ['run'],
    meaning: "The agent's final message.",
  },
  terminalState: {
    name: 'understudy.terminal_state',
    type: 'string',
    on: ['run'],
    meaning: 'How the run ended (`succeeded`, `failed`, `incomplete`…).',
  },
  modelCalls: {
    name: 'understudy.model_calls',
    type: 'int',
    on: ['run'],
    meaning: 'How many model calls the run made, also those the trace left out.',
  },
  toolCalls: {
    name: 'understudy.tool_calls',
    type: 'int',
    on: ['run'],
    meaning: 'How many tool calls the run made, also those the trace left out.',
  },
  operations: {
    name: 'understudy.operations',
    type: 'int',
    on: ['run'],
    meaning: 'How many world operations the run made, also those the trace left out.',
  },
  httpRequests: {
    name: 'understudy.http_requests',
    type: 'int',
    on: ['run'],
    meaning: "How many requests the test's own msw handlers answered in the run, when any did.",
  },
  runOmitted: {
    name: 'understudy.run.omitted',
    type: 'json',
    on: ['run'],
    meaning: 'Steps of the run the trace left out to stay within its budget.',
  },
  drillName: { name: 'understudy.drill.name', type: 'string', on: ['run'], meaning: "The drill's name." },
  drillBuild: {
    name: 'understudy.drill.build',
    type: 'json',
    on: ['run'],
    meaning: "The drill's build, with its per-test rules.",
  },
  drillSeed: { name: 'understudy.drill.seed', type: 'string', on: ['run'], meaning: "The drill's seed." },
  drillVerdict: {
    name: 'understudy.drill.verdict',
    type: 'json',
    on: ['run'],
    meaning: "The drill's verdict.",
  },

  // ── a model call ──
  providerName: {
    name: 'gen_ai.provider.name',
    type: 'string',
    on: ['model'],
    meaning: 'The provider whose API the request spoke (`openai`, `anthropic`…).',
  },
  requestModel: {
    name: 'gen_ai.request.model',
    type: 'string',
    on: ['model'],
    meaning: 'The model the request asked for.',
  },
  responseModel: {
    name: 'gen_ai.response.model',
    type: 'string',
    on: ['model'],
    meaning: 'The model the reply named.',
  },
  inputTokens: {
    name: 'gen_ai.usage.input_tokens',
    type: 'int',
    on: ['model'],
    meaning: "The reply's input token count.",
  },
  outputTokens: {
    name: 'gen_ai.usage.output_tokens',
    type: 'int',
    on: ['model'],
    meaning: "The reply's output token count.",
  },
  finishReasons: {
    name: 'gen_ai.response.finish_reasons',
    type: 'string[]',
    on: ['model'],
    meaning: "The reply's finish reason (absent when the reply was cut short).",
  },
  systemInstructions: {
    name: 'gen_ai.system_instructions',
    type: 'string',
    on: ['model'],
    meaning: "The request's system messages.",
  },
  inputMessages: {
    name: 'gen_ai.input.messages',
    type: 'json',
    on: ['model'],
    meaning: "The request's messages, in the neutral form every protocol shares.",
  },
  outputMessages: {
    name: 'gen_ai.output.messages',
    type: 'json',
    on: ['model'],
    meaning: 'The reply as it reached the client: text, tool calls, finish reason, usage.',
  },
  toolDefinitions: {
    name: 'gen_ai.tool.definitions',
    type: 'json',
    on: ['model'],
    meaning: 'The tools the request offered.',
  },
  modelCallIndex: {
    name: 'understudy.model_call.index',
    type: 'int',
    on: ['model'],
    meaning: "The call's position among the test file's model calls, from 0.",
  },
  protocol: {
    name: 'understudy.protocol',
    type: 'string',
    on: ['model', 'session'],
    meaning: 'The wire protocol (`openai-chat`, `anthropic-messages`, `openai.realtime`…).',
  },
  streamed: { name: 'understudy.streamed', type: 'bool', on: ['model'], meaning: 'The reply was streamed.' },
  unmatched: {
    name: 'understudy.unmatched',
    type: 'bool',
    on: ['model'],
    meaning: 'No fixture matched the request.',
  },
  fixtureId: {
    name: 'understudy.fixture.id',
    type: 'string',
    on: ['model'],
    meaning: 'The fixture that answered: its id, else `#` and its registration order.',
  },
  fixtureFile: {
    name: 'understudy.fixture.file',
    type: 'string',
    on: ['model'],
    meaning: 'The file that fixture came from.',
  },
  fixturePath: {
    name: 'understudy.fixture.path',
    type: 'string',
    on: ['model'],
    meaning: "The fixture's JSON path in that file.",
  },
  turnIndexRelaxed: {
    name: 'understudy.turn_index_relaxed',
    type: 'bool',
    on: ['model'],
    meaning: 'The fixture matched with its turn index relaxed.',
  },
  fault: {
    name: 'understudy.fault',
    type: 'string',
    on: ['model'],
    meaning: 'The fault injected into the reply.',
  },
  matchUserMessage: {
    name: 'understudy.match.user_message',
    type: 'string',
    on: ['model'],
    meaning: "Match key: the request's last user message.",
  },
  matchTurnIndex: {
    name: 'understudy.match.turn_index',
    type: 'int',
    on: ['model'],
    meaning: "Match key: the request's turn index.",
  },
  matchHasToolResult: {
    name: 'understudy.match.has_tool_result',
    type: 'bool',
    on: ['model'],
    meaning: 'Match key: the request ends with a tool result.',
  },
  matchToolCallId: {
    name: 'understudy.match.tool_call_id',
    type: 'string',
    on: ['model'],
    meaning: 'Match key: the id of the tool call that result answers.',
  },
  matchToolNames: {
    name: 'understudy.match.tool_names',
    type: 'string[]',
    on: ['model'],
    meaning: 'Match key: the names of the tools the request offered.',
  },
  matchModel: {
    name: 'understudy.match.model',
    type: 'string',
    on: ['model'],
    meaning: 'Match key: the model the request asked for.',
  },
  omittedMessages: {
    name: 'understudy.omitted_messages',
    type: 'int',
    on: ['model'],
    meaning: 'Messages of the request the trace left out (between its system messages and the latest ones).',
  },
  modelError: {
    name: 'understudy.error',
    type: 'json',
    on: ['model'],
    meaning: 'The error the model answered with (type, message, status).',
  },
  cutReason: {
    name: 'understudy.cut.reason',
    type: 'string',
    on: ['model'],
    meaning: 'Why the reply was cut short on the wire.',
  },
  cutDelivered: {
    name: 'understudy.cut.delivered',
    type: 'int',
    on: ['model'],
    meaning: 'How many events of the cut reply reached the client whole.',
  },
  cutOf: {
    name: 'understudy.cut.of',
    type: 'int',
    on: ['model'],
    meaning: 'How many events the whole reply had.',
  },
  whole: {
    name: 'understudy.whole',
    type: 'json',
    on: ['model'],
    meaning: 'The whole reply that was sent, for a cut one.',
  },

  // ── a tool call ──
  toolName: { name: 'gen_ai.tool.name', type: 'string', on: ['tool'], meaning: "The tool's name." },
  toolCallId: { name: 'gen_ai.tool.call.id', type: 'string', on: ['tool'], meaning: "The tool call's id." },
  toolCallArguments: {
    name: 'gen_ai.tool.call.arguments',
    type: 'json',
    on: ['tool'],
    meaning: 'The arguments the model gave (what arrived, for an incomplete call).',
  },
  toolCallResult: {
    name: 'gen_ai.tool.call.result',
    type: 'json',
    on: ['tool'],
    meaning: 'The result, or the error, the tool gave.',
  },
  toolAnswered: {
    name: 'understudy.tool.answered',
    type: 'bool',
    on: ['tool'],
    meaning: 'A later request carried the result back to the model.',
  },
  toolIncomplete: {
    name: 'understudy.tool.incomplete',
    type: 'bool',
    on: ['tool'],
    meaning: "The call's arguments never ended on the wire (the reply was cut short).",
  },
  toolRequestedBy: {
    name: 'understudy.tool.requested_by',
    type: 'int',
    on: ['tool'],
    meaning: 'The `understudy.model_call.index` of the model call that asked for it.',
  },

  // ── a world operation ──
  operationSeq: {
    name: 'understudy.operation.seq',
    type: 'int',
    on: ['operation'],
    meaning: "The operation's sequence number in the world.",
  },
  operationPackageId: {
    name: 'understudy.operation.package_id',
    type: 'string',
    on: ['operation'],
    meaning: 'The world package it belongs to.',
  },
  operationId: {
    name: 'understudy.operation.operation_id',
    type: 'string',
    on: ['operation'],
    meaning: "The operation's id in that package.",
  },
  operationInput: {
    name: 'understudy.operation.input',
    type: 'json',
    on: ['operation'],
    meaning: 'The input it was called with.',
  },
  operationOutcome: {
    name: 'understudy.operation.outcome',
    type: 'json',
    on: ['operation'],
    meaning: 'What it answered.',
  },
  operationToolCallId: {
    name: 'understudy.operation.tool_call_id',
    type: 'string',
    on: ['operation'],
    meaning: 'The tool call it served.',
  },
  operationFiles: {
    name: 'understudy.operation.files',
    type: 'json',
    on: ['operation'],
    meaning: 'Workspace files it changed.',
  },
  operation: {
    name: 'understudy.operation',
    type: 'json',
    on: ['operation'],
    meaning: 'The whole operation record the world kept.',
  },
  override: {
    name: 'understudy.override',
    type: 'json',
    on: ['operation'],
    meaning: 'The override (a rule or a drill) that decided its outcome.',
  },
  overrideId: {
    name: 'understudy.override.id',
    type: 'scalar',
    on: ['operation'],
    meaning: "That override's id.",
  },

  // ── a WebSocket session (OpenAI Realtime, Gemini Live, the Responses WebSocket mode) ──
  sessionIndex: {
    name: 'understudy.session.index',
    type: 'int',
    on: ['session'],
    meaning: "The session's position among the test's sessions, from 0.",
  },
  sessionCloseCode: {
    name: 'understudy.session.close_code',
    type: 'int',
    on: ['session'],
    meaning:
      'How the socket closed (RFC 6455: `1000` normal, `1001` the file ended, `1006` dropped); absent while open.',
  },
  sessionCloseReason: {
    name: 'understudy.session.close_reason',
    type: 'string',
    on: ['session'],
    meaning: 'The reason its close frame gave.',
  },
  sessionClosedBy: {
    name: 'understudy.session.closed_by',
    type: 'string',
    on: ['session'],
    meaning: 'Who closed it: `client`, `server` (the protocol, a fault) or `file end`.',
  },
  sessionDropped: {
    name: 'understudy.session.dropped',
    type: 'bool',
    on: ['session'],
    meaning: 'It ended with no close frame (the client saw `1006`).',
  },
  sessionTurns: {
    name: 'understudy.session.turns',
    type: 'int',
    on: ['session'],
    meaning: 'How many turns the session had, also those the trace left out.',
  },
  sessionOmittedTurns: {
    name: 'understudy.session.omitted_turns',
    type: 'int',
    on: ['session'],
    meaning: 'Turns the trace left out (between the first and the latest) to stay within its budget.',
  },

  // ── a turn of a session: the user's input, and what the assistant did until the next ──
  turnIndex: {
    name: 'understudy.turn.index',
    type: 'int',
    on: ['turn'],
    meaning: "The turn's position in its session, from 0.",
  },
  turnInputVia: {
    name: 'understudy.turn.input_via',
    type: 'string',
    on: ['turn'],
    meaning: 'How the user gave the input that opened the turn: `audio` (spoken) or `text` (typed).',
  },
  turnUser: {
    name: 'understudy.turn.user',
    type: 'string',
    on: ['turn'],
    meaning:
      'What the user said (the transcript the session heard) or typed; absent for speech it could not make out.',
  },
  turnAssistant: {
    name: 'understudy.turn.assistant',
    type: 'string',
    on: ['turn'],
    meaning:
      'What the assistant said (text or transcript) as it reached the user: an interrupted answer stops where it was cut.',
  },
  turnModelCalls: {
    name: 'understudy.turn.model_calls',
    type: 'json',
    on: ['turn'],
    meaning:
      'The `understudy.model_call.index` of each model call of the turn, in order (the span links to them too).',
  },
  turnToolCalls: {
    name: 'understudy.turn.tool_calls',
    type: 'json',
    on: ['turn'],
    meaning:
      'The tool calls of the turn, in order: id, name, arguments, the output the client sent back, and `at`, the characters of `understudy.turn.assistant` said before it.',
  },
  turnInterruptedBy: {
    name: 'understudy.turn.interrupted_by',
    type: 'string',
    on: ['turn'],
    meaning:
      'The answer was cut off: `user` (the server heard them speak over it) or `client` (it cancelled or truncated it).',
  },
  turnHeardMs: {
    name: 'understudy.turn.heard_ms',
    type: 'int',
    on: ['turn'],
    meaning: "Milliseconds of the answer's audio the user heard before the client truncated it.",
  },
  turnHeardChars: {
    name: 'understudy.turn.heard_chars',
    type: 'int',
    on: ['turn'],
    meaning: 'Characters of the interrupted answer that reached the user.',
  },
  turnSaidChars: {
    name: 'understudy.turn.said_chars',
    type: 'int',
    on: ['turn'],
    meaning: 'Characters of the whole answer that was interrupted.',
  },
  turnFaults: {
    name: 'understudy.turn.faults',
    type: 'string[]',
    on: ['turn'],
    meaning:
      'What went wrong in the turn: a model error, no fixture, a cut reply, a refused event, the socket dropped.',
  },

  // ── a request the test's own msw handlers answered ──
  httpMethod: {
    name: 'http.request.method',
    type: 'string',
    on: ['http'],
    meaning: "The request's method.",
  },
  httpStatus: {
    name: 'http.response.status_code',
    type: 'int',
    on: ['http'],
    meaning: "The response's status (absent for a network error).",
  },
  httpHandler: {
    name: 'understudy.http.handler',
    type: 'string',
    on: ['http'],
    meaning: 'The handler that answered, as msw names it.',
  },
  httpSource: {
    name: 'understudy.http.source',
    type: 'string',
    on: ['http'],
    meaning: 'Where that handler came from: `understudy.http.use`, `setupServer` or the `handlers` option.',
  },
} as const satisfies Record<string, AttributeInfo>;

/**
 * Attributes named by a prefix and a key of the data: an operation's override carries each of its
 * scalar fields as `understudy.override.<field>` (`scope`, `matchCount`…; `id` is in the table).
 */
export const TRACE_ATTRIBUTE_PREFIXES = {
  overrideField: {
    name: 'understudy.override.',
    type: 'scalar',
    on: ['operation'],
    meaning: 'Each string, number or boolean field of the override (`scope`, `matchCount`…).',
  },
} as const satisfies Record<string, AttributeInfo>;

export type AttributeKey = keyof typeof TRACE_ATTRIBUTES;

type ValueOf<T extends AttributeType> = T extends 'string' | 'json'
  ? string
  : T extends 'int' | 'number'
    ? number
    : T extends 'bool'
      ? boolean
      : T extends 'string[]'
        ? readonly string[]
        : string | number | boolean;

/** The fields of a span, event or resource by the table's keys, each typed as the table says. */
export type TraceFields = {
  [K in AttributeKey]?: ValueOf<(typeof TRACE_ATTRIBUTES)[K]['type']>;
};
