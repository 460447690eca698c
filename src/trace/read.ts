/**
 * Reads an OTLP/JSON trace back into a tree of spans with plain attribute values,
 * for the terminal report and the HTML timeline. Accepts any OTLP/JSON trace; the
 * ones jest-understudy writes carry the attributes of ./attributes.ts, which each span
 * also holds by the table's keys, typed (`fields`), for the views.
 */
import { UnderstudyError } from '../errors';
import { type AttributeType, TRACE_ATTRIBUTES, type TraceFields } from './attributes';
import type { OtlpAnyValue, OtlpEvent, OtlpSpan, OtlpTrace } from './otlp';

export interface SpanNode {
  id: string;
  parentId?: string;
  name: string;
  /** Milliseconds from the start of the trace. */
  start: number;
  duration: number;
  /** Every attribute by its name, as the trace has it. */
  attributes: Record<string, unknown>;
  /** The attributes of ./attributes.ts by the table's keys, those of the table's type. */
  fields: TraceFields;
  events: Array<{ name: string; at: number; attributes: Record<string, unknown>; fields: TraceFields }>;
  status: { code: number; message?: string };
  children: SpanNode[];
  /** The spans this one links to (a session's turn: its model and tool calls), with the link's fields. */
  links: Array<{ spanId: string; fields: TraceFields }>;
  /** 'test' | 'run' | 'model' | 'tool' | 'operation' | 'http' | 'session' | 'turn' | 'span' */
  type: SpanType;
}

export type SpanType = 'test' | 'run' | 'model' | 'tool' | 'operation' | 'http' | 'session' | 'turn' | 'span';

export interface TraceTree {
  traceId: string;
  /** Top-level spans (one per test for the traces jest-understudy writes). */
  roots: SpanNode[];
  resource: Record<string, unknown>;
  resourceFields: TraceFields;
  /** Unix milliseconds of the earliest span. */
  startedAt: number;
  spanCount: number;
}

/** A file that is not a jest-understudy trace (OTLP/JSON). */
export class TraceFormatError extends UnderstudyError<'TRACE_INVALID'> {
  override readonly name = 'TraceFormatError';
  constructor(message: string) {
    super('TRACE_INVALID', message);
  }
}

export function fromAnyValue(value: OtlpAnyValue | Record<string, unknown> | undefined): unknown {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, any>;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue?.values ?? []).map(fromAnyValue);
  if ('kvlistValue' in v) return attributeRecord(v.kvlistValue?.values);
  if ('bytesValue' in v) return v.bytesValue;
  return undefined;
}

function attributeRecord(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) if (kv && typeof kv.key === 'string') out[kv.key] = fromAnyValue(kv.value);
  return out;
}

const KEY_OF_NAME = new Map<string, { key: string; type: AttributeType }>(
  Object.entries(TRACE_ATTRIBUTES).map(([key, info]) => [info.name, { key, type: info.type }]),
);

function fits(value: unknown, type: AttributeType): boolean {
  switch (type) {
    case 'string':
    case 'json':
      return typeof value === 'string';
    case 'int':
    case 'number':
      return typeof value === 'number';
    case 'bool':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'scalar':
      return ['string', 'number', 'boolean'].includes(typeof value);
  }
}

/** The attributes the table names, by its keys; a value not of the table's type is left out. */
export function fieldsOf(attributes: Record<string, unknown>): TraceFields {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const known = KEY_OF_NAME.get(name);
    if (known && fits(value, known.type)) fields[known.key] = value;
  }
  return fields as TraceFields;
}

function typeOf(span: OtlpSpan, fields: TraceFields, isRoot: boolean): SpanType {
  const op = fields.operationName;
  if (op === 'invoke_agent') return 'run';
  if (op === 'chat') return 'model';
  if (op === 'execute_tool') return 'tool';
  if (span.name.startsWith('world.operation') || fields.operationId !== undefined) return 'operation';
  if (fields.httpSource !== undefined) return 'http';
  if (fields.sessionIndex !== undefined) return 'session';
  if (fields.turnIndex !== undefined) return 'turn';
  if (isRoot && fields.testName !== undefined) return 'test';
  return 'span';
}

const nanos = (text: unknown): bigint => {
  try {
    return BigInt(String(text ?? '0'));
  } catch {
    return 0n;
  }
};

/** Parses OTLP/JSON (an object or its text). Throws TraceFormatError when it is not one. */
export function readTrace(input: unknown): TraceTree {
  let doc = input;
  if (typeof doc === 'string') {
    try {
      doc = JSON.parse(doc);
    } catch (error) {
      throw new TraceFormatError(`not JSON: ${(error as Error).message}`);
    }
  }
  const resourceSpans = (doc as Partial<OtlpTrace> | null)?.resourceSpans;
  if (!Array.isArray(resourceSpans))
    throw new TraceFormatError('not an OTLP/JSON trace: it has no "resourceSpans" list');
  const spans: OtlpSpan[] = [];
  let resource: Record<string, unknown> = {};
  for (const rs of resourceSpans) {
    resource = { ...resource, ...attributeRecord(rs?.resource?.attributes) };
    for (const ss of rs?.scopeSpans ?? []) for (const s of ss?.spans ?? []) spans.push(s);
  }
  for (const [i, s] of spans.entries()) {
    if (typeof s?.spanId !== 'string' || typeof s?.name !== 'string')
      throw new TraceFormatError(`span ${i} has no spanId or name`);
  }
  const t0 =
    spans.reduce(
      (m, s) => {
        const t = nanos(s.startTimeUnixNano);
        return m === undefined || t < m ? t : m;
      },
      undefined as bigint | undefined,
    ) ?? 0n;
  const ms = (t: bigint) => Number(t - t0) / 1e6;
  const ids = new Set(spans.map((s) => s.spanId));
  const nodes = new Map<string, SpanNode>();
  for (const s of spans) {
    const attrs = attributeRecord(s.attributes);
    const fields = fieldsOf(attrs);
    const isRoot = !s.parentSpanId || !ids.has(s.parentSpanId);
    const start = nanos(s.startTimeUnixNano);
    nodes.set(s.spanId, {
      id: s.spanId,
      ...(s.parentSpanId && ids.has(s.parentSpanId) && { parentId: s.parentSpanId }),
      name: s.name,
      start: ms(start),
      duration: Math.max(0, ms(nanos(s.endTimeUnixNano)) - ms(start)),
      attributes: attrs,
      fields,
      events: (s.events ?? []).map((e: OtlpEvent) => {
        const attributes = attributeRecord(e.attributes);
        return { name: e.name, at: ms(nanos(e.timeUnixNano)), attributes, fields: fieldsOf(attributes) };
      }),
      status: { code: s.status?.code ?? 0, ...(s.status?.message && { message: s.status.message }) },
      children: [],
      links: (s.links ?? [])
        .filter((l) => typeof l?.spanId === 'string')
        .map((l) => ({ spanId: l.spanId, fields: fieldsOf(attributeRecord(l.attributes)) })),
      type: typeOf(s, fields, isRoot),
    });
  }
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const byStart = (a: SpanNode, b: SpanNode) => a.start - b.start || order(a) - order(b);
  const sortDeep = (list: SpanNode[]) => {
    list.sort(byStart);
    for (const n of list) sortDeep(n.children);
  };
  sortDeep(roots);
  return {
    traceId: spans[0]?.traceId ?? '',
    roots,
    resource,
    resourceFields: fieldsOf(resource),
    startedAt: Number(t0 / 1_000_000n),
    spanCount: spans.length,
  };
}

/** Model calls before the tools they asked for, tools before their operations. */
function order(node: SpanNode): number {
  return { test: 0, run: 1, model: 2, tool: 3, operation: 4, http: 5, session: 6, turn: 7, span: 8 }[
    node.type
  ];
}

/** A JSON attribute parsed, or the text when it is not JSON. */
export function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
