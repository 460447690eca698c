/**
 * Builds OpenTelemetry traces in OTLP/JSON (`resourceSpans → scopeSpans → spans`) from
 * the plain evidence of a test: the test is the root span, each agent run a child
 * (`invoke_agent`), and under a run its model calls (`chat <model>`), tool calls
 * (`execute_tool <name>`), world operations and the requests the test's own msw handlers
 * answered (`http <method> <url>`), following the OpenTelemetry GenAI
 * semantic conventions where they have a name (`gen_ai.*`) and `understudy.*` for the
 * rest (fixture, match keys, override identity, outcome, phase). Tool calls are the
 * run's children, beside the model calls, each naming the model call that asked for it;
 * an operation is the child of the tool call it served when it names one.
 */
import { randomBytes } from 'node:crypto';
import type {
  CallEvidence,
  ExpectationEvidence,
  HttpEvidence,
  OperationEvidence,
  PlainError,
  RunEvidence,
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

type Attr = string | number | boolean | undefined | null | readonly (string | number | boolean)[];

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

export function attributes(record: Record<string, Attr | object>): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || value === null) continue;
    out.push({ key, value: anyValue(value) });
  }
  return out;
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

function exceptionEvent(time: string, error: PlainError, extra: Record<string, Attr> = {}): OtlpEvent {
  return {
    timeUnixNano: time,
    name: 'exception',
    attributes: attributes({
      'exception.type': error.name,
      'exception.message': error.message,
      'exception.stacktrace': error.stack,
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
    attributes: attributes({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      'gen_ai.request.model': call.model,
      'gen_ai.response.model': response?.model,
      'gen_ai.usage.input_tokens': response?.usage.inputTokens,
      'gen_ai.usage.output_tokens': response?.usage.outputTokens,
      // A cut reply never sent its finish reason.
      'gen_ai.response.finish_reasons': response && !cut ? [response.finishReason] : undefined,
      'gen_ai.system_instructions': system.length > 0 ? system.join('\n') : undefined,
      'gen_ai.input.messages': json(call.messages),
      'gen_ai.output.messages': response ? json(response) : undefined,
      'gen_ai.tool.definitions': call.tools.length > 0 ? json(call.tools) : undefined,
      'url.full': call.url,
      'error.type': call.unmatched ? 'unmatched' : call.error?.type,
      'understudy.model_call.index': call.index,
      'understudy.protocol': call.protocol,
      'understudy.streamed': call.streamed,
      'understudy.phase': call.phase,
      'understudy.unmatched': call.unmatched,
      'understudy.fixture.id': call.fixture,
      'understudy.fixture.file': call.fixtureSource?.file,
      'understudy.fixture.path': call.fixtureSource?.path,
      'understudy.turn_index_relaxed': call.turnIndexRelaxed,
      'understudy.fault': call.fault,
      'understudy.match.user_message': k.userMessage ?? undefined,
      'understudy.match.turn_index': k.turnIndex,
      'understudy.match.has_tool_result': k.hasToolResult,
      'understudy.match.tool_call_id': k.toolCallId ?? undefined,
      'understudy.match.tool_names': k.toolNames,
      'understudy.match.model': k.model,
      'understudy.omitted_messages': call.omittedMessages,
      'understudy.error': call.error ? json(call.error) : undefined,
      'understudy.cut.reason': cut?.reason,
      'understudy.cut.delivered': cut?.delivered,
      'understudy.cut.of': cut?.of,
      'understudy.whole': call.whole ? json(call.whole) : undefined,
      'understudy.duration_ms': round(call.durationMs),
      'understudy.outcome': call.unmatched ? 'unmatched' : call.error ? 'error' : cut ? 'cut' : 'replied',
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
    attributes: attributes({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool.name,
      'gen_ai.tool.call.id': tool.id,
      'gen_ai.tool.call.arguments': json(tool.arguments),
      'gen_ai.tool.call.result':
        tool.error !== undefined
          ? json(tool.error)
          : tool.result !== undefined
            ? json(tool.result)
            : undefined,
      'understudy.tool.answered': tool.answered,
      'understudy.tool.incomplete': tool.incomplete,
      // The requesting span's `understudy.model_call.index` (the file-wide one, as every span says).
      'understudy.tool.requested_by': tool.fileModelCallIndex,
      'understudy.outcome': outcome,
      'understudy.duration_ms': round(end - start),
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
  const overrideAttrs: Record<string, Attr> = {};
  if (override !== undefined && override !== null) {
    overrideAttrs['understudy.override'] = json(override);
    if (typeof override === 'object') {
      for (const [key, value] of Object.entries(override as Record<string, unknown>))
        if (['string', 'number', 'boolean'].includes(typeof value))
          overrideAttrs[`understudy.override.${key}`] = value as Attr;
    } else overrideAttrs['understudy.override.id'] = String(override);
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
    attributes: attributes({
      'understudy.operation.seq': op.seq,
      'understudy.operation.package_id': op.packageId,
      'understudy.operation.operation_id': op.operationId,
      'understudy.operation.input': op.input === undefined ? undefined : json(op.input),
      'understudy.operation.outcome': op.outcome === undefined ? undefined : json(op.outcome),
      'understudy.operation.tool_call_id': op.toolCallId,
      'understudy.operation.files': op.files === undefined ? undefined : json(op.files),
      'understudy.operation': json(op),
      'understudy.outcome': outcomeKind(op.outcome),
      ...overrideAttrs,
    }),
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
    attributes: attributes({
      'http.request.method': h.method,
      'url.full': h.url,
      'http.response.status_code': h.status === 0 ? undefined : h.status,
      'error.type': h.status === 0 ? 'network_error' : h.status >= 400 ? String(h.status) : undefined,
      'understudy.http.handler': h.handler,
      'understudy.http.source': h.source,
      'understudy.phase': h.phase,
      'understudy.outcome': h.status === 0 ? 'network error' : String(h.status),
      'understudy.duration_ms': round(h.durationMs),
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
    attributes: attributes({
      'gen_ai.operation.name': 'invoke_agent',
      'understudy.run.index': run.index,
      'understudy.run.kind': run.kind,
      'understudy.phase': run.phase,
      'understudy.run.incomplete': run.incomplete || undefined,
      'understudy.run.input': run.input === undefined ? undefined : json(run.input),
      'understudy.run.output': run.output === undefined ? undefined : json(run.output),
      'understudy.run.files': run.files === undefined ? undefined : json(run.files),
      'understudy.final_message': run.finalMessage,
      'understudy.terminal_state': state,
      'understudy.outcome': state,
      // What the run did, also where the trace keeps only part of it (`understudy.run.omitted`).
      'understudy.model_calls': run.modelCalls.length + (run.omitted?.modelCalls ?? 0),
      'understudy.tool_calls': run.toolCalls.length + (run.omitted?.toolCalls ?? 0),
      'understudy.operations': run.operations.length + (run.omitted?.operations ?? 0),
      'understudy.http_requests':
        (run.httpRequests?.length ?? 0) + (run.omitted?.httpRequests ?? 0) || undefined,
      'understudy.duration_ms': round(run.durationMs),
      'understudy.drill.name': drill?.name,
      'understudy.drill.build': drill?.build === undefined ? undefined : json(drill.build),
      'understudy.drill.seed':
        drill?.seed === undefined
          ? undefined
          : typeof drill.seed === 'object'
            ? json(drill.seed)
            : String(drill.seed),
      'understudy.drill.verdict': drill?.verdict === undefined ? undefined : json(drill.verdict),
      'understudy.run.omitted': run.omitted ? json(run.omitted) : undefined,
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
    attributes: attributes({
      'test.file': test.file,
      'test.name': test.name,
      'test.status': test.status,
      'understudy.runs': evidence.runs.length,
      'understudy.expectation': expectation ? json(expectation) : undefined,
      'understudy.omitted': evidence.omitted ? json(evidence.omitted) : undefined,
    }),
    events: test.errors.map((e) => exceptionEvent(end.toString(), e.error, { 'understudy.phase': e.phase })),
    status: failed
      ? { code: STATUS_ERROR, message: short(test.errors[0]?.error.message ?? 'the test failed', 2000) }
      : { code: STATUS_OK },
  };
  return {
    resourceSpans: [
      {
        resource: {
          attributes: attributes({
            'service.name': 'jest-understudy',
            'test.file': test.file,
            'test.name': test.name,
          }),
        },
        scopeSpans: [{ scope: { name: SCOPE }, spans: [root, ...children] }],
      },
    ],
  };
}
