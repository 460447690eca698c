/**
 * Builds OpenTelemetry traces in OTLP/JSON (`resourceSpans → scopeSpans → spans`) from
 * the plain evidence of a test: the test is the root span, each agent run a child
 * (`invoke_agent`), and under a run its model calls (`chat <model>`), tool calls
 * (`execute_tool <name>`), world operations and the requests the test's own msw handlers
 * answered (`http <method> <url>`), following the OpenTelemetry GenAI
 * semantic conventions where they have a name (`gen_ai.*`) and `understudy.*` for the
 * rest (fixture, match keys, override identity, outcome, phase). Tool calls are the
 * run's children, beside the model calls, each naming the model call that asked for it;
 * an operation is the child of the tool call it served when it names one. A WebSocket session
 * is the test's child (`session <protocol>`), its turns its children in order (`turn <n>`), each
 * linked to the model call and tool call spans it holds.
 */
import { randomBytes } from 'node:crypto';
import {
  type AttributeKey,
  TRACE_ATTRIBUTE_PREFIXES,
  TRACE_ATTRIBUTES,
  type TraceFields,
} from './attributes';
import type {
  CallEvidence,
  ExpectationEvidence,
  HttpEvidence,
  OperationEvidence,
  PlainError,
  RunEvidence,
  SessionEvidence,
  TestEvidence,
  ToolCallEvidence,
} from './evidence';

export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpKeyValue[];
}

export interface OtlpLink {
  traceId: string;
  spanId: string;
  attributes: OtlpKeyValue[];
}

/** One span in OTLP/JSON form. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: OtlpEvent[];
  /** Spans this one refers to elsewhere in the trace (a session's turn: its model and tool calls). */
  links?: OtlpLink[];
  /** code 0 unset, 1 ok, 2 error. */
  status?: { code: number; message?: string };
}

export interface OtlpTrace {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: Array<{ scope: { name: string; version?: string }; spans: OtlpSpan[] }>;
  }>;
}

export const SCOPE = 'jest-understudy';
const KIND_INTERNAL = 1;
const KIND_CLIENT = 3;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

export function anyValue(value: unknown): OtlpAnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value) && value.every((v) => ['string', 'number', 'boolean'].includes(typeof v)))
    return { arrayValue: { values: value.map(anyValue) } };
  return { stringValue: json(value) };
}

/** JSON text of a value, for attributes that carry structures. */
export function json(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/** What a writer gives for a span: fields by the table's keys, each of its type; absent ones are left out. */
export type WrittenFields = { [K in AttributeKey]?: TraceFields[K] | null };

/** A span's attributes, named by the table, in the order the writer gives them. */
export function traceAttributes(fields: WrittenFields, more: OtlpKeyValue[] = []): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    out.push({ key: TRACE_ATTRIBUTES[key as AttributeKey].name, value: anyValue(value) });
  }
  return out.concat(more);
}

const newId = (bytes: number) => randomBytes(bytes).toString('hex');
export const newTraceId = () => newId(16);
export const newSpanId = () => newId(8);

/** Unix nanoseconds of a `performance.now()` reading, as OTLP's decimal string. */
export function unixNano(timeOrigin: number, perfMs: number): string {
  const ms = timeOrigin + Math.max(0, perfMs);
  const whole = Math.floor(ms);
  return (BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6))).toString();
}

function exceptionEvent(time: string, error: PlainError, extra: WrittenFields = {}): OtlpEvent {
  return {
    timeUnixNano: time,
    name: 'exception',
    attributes: traceAttributes({
      exceptionType: error.name,
      exceptionMessage: error.message,
      exceptionStacktrace: error.stack,
      ...extra,
    }),
  };
}

interface Context {
  traceId: string;
  timeOrigin: number;
}

function callSpan(call: CallEvidence, parentSpanId: string | undefined, ctx: Context): OtlpSpan {
  const k = call.matchKeys;
  const system = call.messages.filter((m) => m.role === 'system').map((m) => m.text ?? '');
  const { cut } = call;
  const failed = call.unmatched || call.error !== undefined || cut !== undefined;
  const start = unixNano(ctx.timeOrigin, call.startedAt);
  const end = unixNano(ctx.timeOrigin, call.startedAt + call.durationMs);
  const response = call.response;
  const span: OtlpSpan = {
    traceId: ctx.traceId,
    spanId: newSpanId(),
    ...(parentSpanId && { parentSpanId }),
    name: `chat ${call.model}`,
    kind: KIND_CLIENT,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes: traceAttributes({
      operationName: 'chat',
      providerName: call.provider,
      requestModel: call.model,
      responseModel: response?.model,
      inputTokens: response?.usage.inputTokens,
      outputTokens: response?.usage.outputTokens,
      // A cut reply never sent its finish reason.
      finishReasons: response && !cut ? [response.finishReason] : undefined,
      systemInstructions: system.length > 0 ? system.join('\n') : undefined,
      inputMessages: json(call.messages),
      outputMessages: response ? json(response) : undefined,
      toolDefinitions: call.tools.length > 0 ? json(call.tools) : undefined,
      url: call.url,
      errorType: call.unmatched ? 'unmatched' : call.error?.type,
      modelCallIndex: call.index,
      protocol: call.protocol,
      streamed: call.streamed,
      phase: call.phase,
      unmatched: call.unmatched,
      fixtureId: call.fixture,
      fixtureFile: call.fixtureSource?.file,
      fixturePath: call.fixtureSource?.path,
      turnIndexRelaxed: call.turnIndexRelaxed,
      fault: call.fault,
      matchUserMessage: k.userMessage ?? undefined,
      matchTurnIndex: k.turnIndex,
      matchHasToolResult: k.hasToolResult,
      matchToolCallId: k.toolCallId ?? undefined,
      matchToolNames: k.toolNames,
      matchModel: k.model,
      omittedMessages: call.omittedMessages,
      modelError: call.error ? json(call.error) : undefined,
      cutReason: cut?.reason,
      cutDelivered: cut?.delivered,
      cutOf: cut?.of,
      whole: call.whole ? json(call.whole) : undefined,
      durationMs: round(call.durationMs),
      outcome: call.unmatched ? 'unmatched' : call.error ? 'error' : cut ? 'cut' : 'replied',
    }),
    status: failed
      ? {
          code: STATUS_ERROR,
          message: call.error?.message ?? (cut ? cutMessage(cut) : 'no fixture matched'),
        }
      : { code: STATUS_OK },
  };
  return span;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** A cut reply in words, for a span's status. */
function cutMessage(cut: NonNullable<CallEvidence['cut']>): string {
  const of = cut.of === undefined ? '' : ` of ${cut.of}`;
  return `the reply was cut short on the wire (${cut.reason}): ${cut.delivered}${of} events reached the client`;
}

/** When a tool ran: after the model call that asked for it, until the request that carried its result. */
function toolWindow(tool: ToolCallEvidence, run: RunEvidence): [number, number] {
  const calls = run.modelCalls;
  const asking = calls.find((c) => c.index === tool.fileModelCallIndex);
  const start = asking ? asking.startedAt + asking.durationMs : run.startedAt;
  const answering = calls.find(
    (c) => c.startedAt >= start && c.messages.some((m) => m.role === 'tool' && m.toolCallId === tool.id),
  );
  const end = answering ? answering.startedAt : run.startedAt + run.durationMs;
  return [start, Math.max(start, end)];
}

function toolSpan(tool: ToolCallEvidence, run: RunEvidence, parentSpanId: string, ctx: Context): OtlpSpan {
  const [start, end] = toolWindow(tool, run);
  const outcome = tool.incomplete
    ? 'incomplete'
    : tool.error !== undefined
      ? 'error'
      : tool.answered
        ? 'ok'
        : 'unanswered';
  return {
    traceId: ctx.traceId,
    spanId: newSpanId(),
    parentSpanId,
    name: `execute_tool ${tool.name}`,
    kind: KIND_INTERNAL,
    startTimeUnixNano: unixNano(ctx.timeOrigin, start),
    endTimeUnixNano: unixNano(ctx.timeOrigin, end),
    attributes: traceAttributes({
      operationName: 'execute_tool',
      toolName: tool.name,
      toolCallId: tool.id,
      toolCallArguments: json(tool.arguments),
      toolCallResult:
        tool.error !== undefined
          ? json(tool.error)
          : tool.result !== undefined
            ? json(tool.result)
            : undefined,
      toolAnswered: tool.answered,
      toolIncomplete: tool.incomplete,
      // The requesting span's `modelCallIndex` (the file-wide one, as every span says).
      toolRequestedBy: tool.fileModelCallIndex,
      outcome: outcome,
      durationMs: round(end - start),
    }),
    status:
      outcome === 'error'
        ? { code: STATUS_ERROR, message: `the tool reported an error: ${short(json(tool.error))}` }
        : outcome === 'incomplete'
          ? { code: STATUS_ERROR, message: 'the reply was cut short before these arguments ended' }
          : { code: outcome === 'ok' ? STATUS_OK : 0 },
  };
}

const short = (text: string, n = 200) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

/** The outcome of an operation in one word, whatever shape the world gives it. */
export function outcomeKind(outcome: unknown): string | undefined {
  if (outcome === undefined) return undefined;
  if (typeof outcome === 'string') return outcome;
  if (typeof outcome !== 'object' || outcome === null) return String(outcome);
  const o = outcome as Record<string, unknown>;
  for (const key of ['kind', 'type', 'status', 'result'])
    if (typeof o[key] === 'string') return o[key] as string;
  if (o.ok === false || o.error !== undefined) return 'error';
  if (o.ok === true) return 'ok';
  return undefined;
}

function isErrorOutcome(outcome: unknown): boolean {
  const kind = outcomeKind(outcome);
  return kind === 'error' || kind === 'failed' || kind === 'rejected' || kind === 'denied';
}

function operationSpan(
  op: OperationEvidence,
  parentSpanId: string,
  window: [number, number],
  ctx: Context,
): OtlpSpan {
  const start = typeof op.startedAt === 'number' ? op.startedAt : window[0];
  const end = start + (typeof op.durationMs === 'number' ? op.durationMs : 0);
  const override = op.override;
  const overrideFields: OtlpKeyValue[] = [];
  if (override !== undefined && override !== null) {
    overrideFields.push(...traceAttributes({ override: json(override) }));
    if (typeof override === 'object') {
      for (const [key, value] of Object.entries(override as Record<string, unknown>))
        if (['string', 'number', 'boolean'].includes(typeof value))
          overrideFields.push({
            key: `${TRACE_ATTRIBUTE_PREFIXES.overrideField.name}${key}`,
            value: anyValue(value),
          });
    } else overrideFields.push(...traceAttributes({ overrideId: String(override) }));
  }
  const id = [op.packageId, op.operationId].filter(Boolean).join('/') || 'operation';
  const error = isErrorOutcome(op.outcome);
  return {
    traceId: ctx.traceId,
    spanId: newSpanId(),
    parentSpanId,
    name: `world.operation ${id}`,
    kind: KIND_INTERNAL,
    startTimeUnixNano: unixNano(ctx.timeOrigin, start),
    endTimeUnixNano: unixNano(ctx.timeOrigin, end),
    attributes: traceAttributes(
      {
        operationSeq: op.seq,
        operationPackageId: op.packageId,
        operationId: op.operationId,
        operationInput: op.input === undefined ? undefined : json(op.input),
        operationOutcome: op.outcome === undefined ? undefined : json(op.outcome),
        operationToolCallId: op.toolCallId,
        operationFiles: op.files === undefined ? undefined : json(op.files),
        operation: json(op),
        outcome: outcomeKind(op.outcome),
      },
      overrideFields,
    ),
    status: error ? { code: STATUS_ERROR, message: short(json(op.outcome)) } : { code: 0 },
  };
}

/** A request one of the test's own msw handlers answered: an HTTP client span (OpenTelemetry's names). */
function httpSpan(h: HttpEvidence, parentSpanId: string, ctx: Context): OtlpSpan {
  const failed = h.status === 0 || h.status >= 400;
  return {
    traceId: ctx.traceId,
    spanId: newSpanId(),
    parentSpanId,
    name: `http ${h.method} ${h.url}`,
    kind: KIND_CLIENT,
    startTimeUnixNano: unixNano(ctx.timeOrigin, h.startedAt),
    endTimeUnixNano: unixNano(ctx.timeOrigin, h.startedAt + h.durationMs),
    attributes: traceAttributes({
      httpMethod: h.method,
      url: h.url,
      httpStatus: h.status === 0 ? undefined : h.status,
      errorType: h.status === 0 ? 'network_error' : h.status >= 400 ? String(h.status) : undefined,
      httpHandler: h.handler,
      httpSource: h.source,
      phase: h.phase,
      outcome: h.status === 0 ? 'network error' : String(h.status),
      durationMs: round(h.durationMs),
    }),
    status: failed
      ? {
          code: STATUS_ERROR,
          message: h.status === 0 ? 'the handler answered with a network error' : `HTTP ${h.status}`,
        }
      : { code: STATUS_OK },
  };
}

/** The spans of one agent run: the run, its model calls, tool calls, operations and HTTP requests. */
export function runSpans(
  run: RunEvidence,
  traceId: string,
  timeOrigin: number,
  parentSpanId?: string,
): OtlpSpan[] {
  const ctx: Context = { traceId, timeOrigin };
  const runSpanId = newSpanId();
  const end = run.startedAt + run.durationMs;
  const state = run.incomplete ? 'incomplete' : run.terminalState;
  const failed = state !== 'succeeded';
  const drill = run.drill;
  const root: OtlpSpan = {
    traceId,
    spanId: runSpanId,
    ...(parentSpanId && { parentSpanId }),
    name: `invoke_agent run ${run.index}`,
    kind: KIND_INTERNAL,
    startTimeUnixNano: unixNano(timeOrigin, run.startedAt),
    endTimeUnixNano: unixNano(timeOrigin, end),
    attributes: traceAttributes({
      operationName: 'invoke_agent',
      runIndex: run.index,
      runKind: run.kind,
      phase: run.phase,
      runIncomplete: run.incomplete || undefined,
      runInput: run.input === undefined ? undefined : json(run.input),
      runOutput: run.output === undefined ? undefined : json(run.output),
      runFiles: run.files === undefined ? undefined : json(run.files),
      finalMessage: run.finalMessage,
      terminalState: state,
      outcome: state,
      // What the run did, also where the trace keeps only part of it (`runOmitted`).
      modelCalls: run.modelCalls.length + (run.omitted?.modelCalls ?? 0),
      toolCalls: run.toolCalls.length + (run.omitted?.toolCalls ?? 0),
      operations: run.operations.length + (run.omitted?.operations ?? 0),
      httpRequests: (run.httpRequests?.length ?? 0) + (run.omitted?.httpRequests ?? 0) || undefined,
      durationMs: round(run.durationMs),
      drillName: drill?.name,
      drillBuild: drill?.build === undefined ? undefined : json(drill.build),
      drillSeed:
        drill?.seed === undefined
          ? undefined
          : typeof drill.seed === 'object'
            ? json(drill.seed)
            : String(drill.seed),
      drillVerdict: drill?.verdict === undefined ? undefined : json(drill.verdict),
      runOmitted: run.omitted ? json(run.omitted) : undefined,
    }),
    ...(run.error && { events: [exceptionEvent(unixNano(timeOrigin, end), run.error)] }),
    status: failed
      ? { code: STATUS_ERROR, message: run.error?.message ?? `terminal state ${state}` }
      : { code: STATUS_OK },
  };
  const spans: OtlpSpan[] = [root];
  for (const call of run.modelCalls) spans.push(callSpan(call, runSpanId, ctx));
  const toolSpans = new Map<string, { span: OtlpSpan; window: [number, number] }>();
  for (const tool of run.toolCalls) {
    const span = toolSpan(tool, run, runSpanId, ctx);
    toolSpans.set(tool.id, { span, window: toolWindow(tool, run) });
    spans.push(span);
  }
  for (const op of run.operations) {
    const tool = op.toolCallId === undefined ? undefined : toolSpans.get(op.toolCallId);
    spans.push(operationSpan(op, tool?.span.spanId ?? runSpanId, tool?.window ?? [run.startedAt, end], ctx));
  }
  for (const h of run.httpRequests ?? []) spans.push(httpSpan(h, runSpanId, ctx));
  return spans;
}

/** The spans already written that a session's turns link to: model calls by index, tool calls by id. */
function linkTargets(spans: readonly OtlpSpan[]): { calls: Map<number, string>; tools: Map<string, string> } {
  const op = TRACE_ATTRIBUTES.operationName.name;
  const index = TRACE_ATTRIBUTES.modelCallIndex.name;
  const toolId = TRACE_ATTRIBUTES.toolCallId.name;
  const calls = new Map<number, string>();
  const tools = new Map<string, string>();
  for (const span of spans) {
    const kind = span.attributes.find((a) => a.key === op)?.value;
    const value = (key: string) => span.attributes.find((a) => a.key === key)?.value;
    if (kind && 'stringValue' in kind && kind.stringValue === 'chat') {
      const i = value(index);
      if (i && 'intValue' in i) calls.set(Number(i.intValue), span.spanId);
    } else if (kind && 'stringValue' in kind && kind.stringValue === 'execute_tool') {
      const id = value(toolId);
      if (id && 'stringValue' in id) tools.set(id.stringValue, span.spanId);
    }
  }
  return { calls, tools };
}

/** A session's span and its turns', in order, each turn linked to the spans of its model and tool calls. */
function sessionSpans(
  session: SessionEvidence,
  parentSpanId: string,
  targets: ReturnType<typeof linkTargets>,
  ctx: Context,
): OtlpSpan[] {
  const spanId = newSpanId();
  const end = session.startedAt + session.durationMs;
  const state = session.dropped ? 'dropped' : session.closeCode === undefined ? 'open' : 'closed';
  const failed = session.turns.some((t) => t.faults !== undefined) || session.dropped === true;
  const root: OtlpSpan = {
    traceId: ctx.traceId,
    spanId,
    parentSpanId,
    name: `session ${session.protocol}`,
    kind: KIND_CLIENT,
    startTimeUnixNano: unixNano(ctx.timeOrigin, session.startedAt),
    endTimeUnixNano: unixNano(ctx.timeOrigin, end),
    attributes: traceAttributes({
      sessionIndex: session.index,
      url: session.url,
      protocol: session.protocol,
      sessionCloseCode: session.closeCode,
      sessionCloseReason: session.closeReason,
      sessionClosedBy: session.closedBy,
      sessionDropped: session.dropped,
      sessionTurns: session.turns.length + (session.omittedTurns ?? 0),
      sessionOmittedTurns: session.omittedTurns,
      outcome: state,
      durationMs: round(session.durationMs),
    }),
    status: failed
      ? {
          code: STATUS_ERROR,
          message: session.dropped ? 'the socket dropped (no close frame)' : 'a turn of the session failed',
        }
      : { code: STATUS_OK },
  };
  const spans = [root];
  for (const turn of session.turns) {
    const interrupted = turn.interrupted;
    const outcome = turn.faults
      ? 'failed'
      : interrupted
        ? 'interrupted'
        : turn.modelCalls.length > 0
          ? 'answered'
          : 'unanswered';
    const links: OtlpLink[] = [];
    for (const index of turn.modelCalls) {
      const target = targets.calls.get(index);
      if (target)
        links.push({
          traceId: ctx.traceId,
          spanId: target,
          attributes: traceAttributes({ modelCallIndex: index }),
        });
    }
    for (const tool of turn.toolCalls) {
      const target = targets.tools.get(tool.id);
      if (target)
        links.push({
          traceId: ctx.traceId,
          spanId: target,
          attributes: traceAttributes({ toolCallId: tool.id }),
        });
    }
    spans.push({
      traceId: ctx.traceId,
      spanId: newSpanId(),
      parentSpanId: spanId,
      name: `turn ${turn.index}`,
      kind: KIND_INTERNAL,
      startTimeUnixNano: unixNano(ctx.timeOrigin, turn.startedAt),
      endTimeUnixNano: unixNano(ctx.timeOrigin, turn.startedAt + turn.durationMs),
      attributes: traceAttributes({
        turnIndex: turn.index,
        turnInputVia: turn.user?.via,
        turnUser: turn.user?.text,
        turnAssistant: turn.assistant,
        turnModelCalls: json(turn.modelCalls),
        turnToolCalls: turn.toolCalls.length > 0 ? json(turn.toolCalls) : undefined,
        turnInterruptedBy: interrupted?.by,
        turnHeardMs: interrupted?.heardMs,
        turnHeardChars: interrupted?.heardChars,
        turnSaidChars: interrupted?.ofChars,
        turnFaults: turn.faults,
        outcome,
        durationMs: round(turn.durationMs),
      }),
      ...(links.length > 0 && { links }),
      status: turn.faults
        ? { code: STATUS_ERROR, message: turn.faults.join('; ') }
        : { code: outcome === 'unanswered' ? 0 : STATUS_OK },
    });
  }
  return spans;
}

/** One step of a trace's evidence: a run's own fields, a model call, a tool call, an operation or an HTTP request. */
export type TraceStep =
  | { run: Omit<RunEvidence, 'modelCalls' | 'toolCalls' | 'operations' | 'httpRequests'> }
  | { call: CallEvidence }
  | { tool: ToolCallEvidence }
  | { operation: OperationEvidence }
  | { http: HttpEvidence };

/** Where a step's span sits in a written trace: `resourceSpans[0].scopeSpans[0].spans[i]`. */
const SPAN_INDENT = 12;

/** The bytes a step's span takes in a trace written as indented JSON, for the trace's budget. */
export function traceBytesOf(step: TraceStep): number {
  const ctx: Context = { traceId: '0'.repeat(32), timeOrigin: 0 };
  const parent = '0'.repeat(16);
  const empty = { modelCalls: [], toolCalls: [], operations: [] };
  let span: OtlpSpan;
  if ('run' in step) span = runSpans({ ...step.run, ...empty }, ctx.traceId, 0, parent)[0];
  else if ('call' in step) span = callSpan(step.call, parent, ctx);
  else if ('tool' in step)
    span = toolSpan(
      step.tool,
      { index: 0, kind: 'run', phase: 'test', incomplete: false, startedAt: 0, durationMs: 0, ...empty },
      parent,
      ctx,
    );
  else if ('http' in step) span = httpSpan(step.http, parent, ctx);
  else span = operationSpan(step.operation, parent, [0, 0], ctx);
  const text = JSON.stringify(span, null, 2);
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.length + lines * SPAN_INDENT + 2;
}

export interface TestInfo {
  /** Test file, relative to the rootDir. */
  file: string;
  /** `describe > … > test`. */
  name: string;
  status: 'passed' | 'failed';
  errors: Array<{ phase: string; error: PlainError }>;
  /** performance.now() (host realm) readings of the test's start and end, when known. */
  startedAt?: number;
  endedAt?: number;
  timeOrigin?: number;
}

/** The whole trace of one test, ready to write as JSON. */
export function testTrace(test: TestInfo, evidence: TestEvidence): OtlpTrace {
  const traceId = newTraceId();
  const rootId = newSpanId();
  const origin = evidence.timeOrigin;
  const children: OtlpSpan[] = [];
  for (const run of evidence.runs) children.push(...runSpans(run, traceId, origin, rootId));
  for (const call of evidence.looseCalls)
    children.push(callSpan(call, rootId, { traceId, timeOrigin: origin }));
  for (const h of evidence.looseHttp ?? [])
    children.push(httpSpan(h, rootId, { traceId, timeOrigin: origin }));
  if (evidence.sessions?.length) {
    const targets = linkTargets(children);
    for (const session of evidence.sessions)
      children.push(...sessionSpans(session, rootId, targets, { traceId, timeOrigin: origin }));
  }

  // The test's own span covers its children; without any, the host's reading of the test.
  let start = children.reduce(
    (m, s) => (m === undefined || BigInt(s.startTimeUnixNano) < m ? BigInt(s.startTimeUnixNano) : m),
    undefined as bigint | undefined,
  );
  let end = children.reduce(
    (m, s) => (m === undefined || BigInt(s.endTimeUnixNano) > m ? BigInt(s.endTimeUnixNano) : m),
    undefined as bigint | undefined,
  );
  const hostOrigin = test.timeOrigin ?? origin;
  if (start === undefined) start = BigInt(unixNano(hostOrigin, test.startedAt ?? 0));
  if (end === undefined) end = BigInt(unixNano(hostOrigin, test.endedAt ?? test.startedAt ?? 0));
  if (end < start) end = start;
  const expectation: ExpectationEvidence | undefined = evidence.expectation;
  const failed = test.status === 'failed';
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: test.name,
    kind: KIND_INTERNAL,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: end.toString(),
    attributes: traceAttributes({
      testFile: test.file,
      testName: test.name,
      testStatus: test.status,
      runs: evidence.runs.length,
      expectation: expectation ? json(expectation) : undefined,
      omitted: evidence.omitted ? json(evidence.omitted) : undefined,
    }),
    events: test.errors.map((e) => exceptionEvent(end.toString(), e.error, { phase: e.phase })),
    status: failed
      ? { code: STATUS_ERROR, message: short(test.errors[0]?.error.message ?? 'the test failed', 2000) }
      : { code: STATUS_OK },
  };
  return {
    resourceSpans: [
      {
        resource: {
          attributes: traceAttributes({
            serviceName: 'jest-understudy',
            testFile: test.file,
            testName: test.name,
          }),
        },
        scopeSpans: [{ scope: { name: SCOPE }, spans: [root, ...children] }],
      },
    ],
  };
}
