/**
 * `toHaveSpans(query)`: assertions on a run's trace (its OTLP spans, `run.trace`). The query
 * picks spans by name, kind, status and attributes; `count` bounds how many match (default at
 * least one), `durationMs` bounds each matching span's duration. Durations are read from the
 * spans' times, which follow the test's clock: under Jest's fake timers a 30 s model latency
 * lasts exactly 30,000 ms. A failure lists every span, the matching ones marked.
 */
import { isRegExp } from 'node:util/types';
import type { MatcherContext, SyncExpectationResult } from 'expect';
import { readTrace, type SpanNode } from '../src/trace/read';
import { parseBounds, type Range, rangeText, within } from './bounds';
import { isAsymmetricMatcher, isPlainObject, matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
  RECEIVED_COLOR,
  stringify,
} from './matcher-utils';

const QUERY_KEYS = ['name', 'kind', 'status', 'attributes', 'count', 'durationMs'];
const KINDS = ['run', 'model', 'tool', 'operation'];
const STATUSES: Record<string, number> = { unset: 0, ok: 1, error: 2 };

interface Query {
  name?: string | RegExp;
  kind?: string;
  status?: string;
  attributes?: Record<string, unknown>;
  count: Range;
  durationMs?: Range;
}

export function toHaveSpans(this: MatcherContext, received: unknown, query: unknown): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveSpans', undefined, 'query', {
    isNot: this.isNot,
    promise: this.promise,
  });
  const spans = spansOf(hint, received);
  const q = parseQuery(hint, query);
  const { equals } = this;
  const selected = (s: SpanNode) =>
    (q.name === undefined || (typeof q.name === 'string' ? s.name === q.name : q.name.test(s.name))) &&
    (q.kind === undefined || s.type === q.kind) &&
    (q.status === undefined || s.status.code === STATUSES[q.status]) &&
    Object.entries(q.attributes ?? {}).every(([key, value]) => equals(s.attributes[key], value));
  const matching = spans.filter(selected);
  const tooLong = q.durationMs ? matching.filter((s) => !within(durationOf(s), q.durationMs!)) : [];
  const countOk = within(matching.length, q.count);
  const pass = countOk && tooLong.length === 0;

  const wanted =
    `${rangeText(q.count, 'span')} matching ${EXPECTED_COLOR(describeQuery(q))}` +
    (q.durationMs ? `, each lasting ${rangeText(q.durationMs, 'ms', 'ms')}` : '');
  const table = spanTable(spans, new Set(matching), new Set(tooLong));
  const received_ = `${matching.length} of ${spans.length} ${spans.length === 1 ? 'span' : 'spans'} match`;
  return {
    pass,
    message: () => {
      if (pass) return `${hint}\n\nExpected: not ${wanted}\nReceived: ${received_}:\n${table}`;
      const lines = [hint, `Expected: ${wanted}`, `Received: ${received_}:\n${table}`];
      if (countOk && tooLong.length > 0)
        lines.push(
          tooLong
            .map(
              (s) =>
                `${printReceived(s.name)} lasted ${RECEIVED_COLOR(ms(durationOf(s)))}, expected ${rangeText(q.durationMs!, 'ms', 'ms')}`,
            )
            .join('\n'),
        );
      return lines.join('\n\n');
    },
  };
}

function spansOf(hint: string, received: unknown): SpanNode[] {
  const list = Array.isArray(received) ? received : (received as { trace?: unknown } | null)?.trace;
  if (!Array.isArray(list)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} must be a Run (its trace) or an array of OTLP spans (run.trace)`,
        printWithType('Received', received, printReceived),
      ),
    );
  }
  const tree = readTrace({ resourceSpans: [{ scopeSpans: [{ spans: list }] }] });
  const out: SpanNode[] = [];
  const walk = (nodes: SpanNode[]) => {
    for (const n of nodes) {
      out.push(n);
      walk(n.children);
    }
  };
  walk(tree.roots);
  return out;
}

function parseQuery(hint: string, query: unknown): Query {
  const bad = (label: string, why: string, value: unknown) =>
    matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR(label)} ${why}`,
        printWithType(label, value, printExpected),
      ),
    );
  if (!isPlainObject(query))
    throw bad('query', 'must be an object like { kind, name, status, count }', query);
  const unknownKey = Object.keys(query).find((k) => !QUERY_KEYS.includes(k));
  if (unknownKey !== undefined)
    throw bad(
      'query',
      `has unknown key "${unknownKey}"; allowed keys: ${QUERY_KEYS.map((k) => `"${k}"`).join(', ')}`,
      query,
    );
  const { name, kind, status, attributes } = query;
  if (name !== undefined && !(typeof name === 'string' && name !== '') && !isRegExp(name))
    throw bad('query.name', 'must be a span name or a RegExp', name);
  if (kind !== undefined && !KINDS.includes(kind as string))
    throw bad('query.kind', `must be one of ${KINDS.map((k) => `"${k}"`).join(', ')}`, kind);
  if (status !== undefined && !(typeof status === 'string' && status in STATUSES))
    throw bad('query.status', 'must be "ok", "error" or "unset"', status);
  if (attributes !== undefined && !isPlainObject(attributes) && !isAsymmetricMatcher(attributes))
    throw bad('query.attributes', 'must be an object of attribute name → value', attributes);
  return {
    ...(name !== undefined && { name: name as string | RegExp }),
    ...(kind !== undefined && { kind: kind as string }),
    ...(status !== undefined && { status: status as string }),
    ...(attributes !== undefined && { attributes: attributes as Record<string, unknown> }),
    count:
      query.count === undefined
        ? { min: 1, max: Number.POSITIVE_INFINITY }
        : parseBounds(hint, 'query.count', query.count, true),
    ...(query.durationMs !== undefined && {
      durationMs: parseBounds(hint, 'query.durationMs', query.durationMs, false),
    }),
  };
}

function describeQuery(q: Query): string {
  const parts = [
    q.kind && `kind ${q.kind}`,
    q.name !== undefined && `name ${typeof q.name === 'string' ? JSON.stringify(q.name) : String(q.name)}`,
    q.status && `status ${q.status}`,
    q.attributes && `attributes ${stringify(q.attributes)}`,
  ].filter(Boolean);
  return parts.length === 0 ? 'any span' : `{ ${parts.join(', ')} }`;
}

/**
 * A span's duration as the run measured it (`understudy.duration_ms`, from the clock readings
 * themselves); from its Unix-nanosecond times otherwise, where wall-clock offsets add rounding.
 */
function durationOf(span: SpanNode): number {
  const measured = span.attributes['understudy.duration_ms'];
  return typeof measured === 'number' ? measured : Math.round(span.duration * 1000) / 1000;
}

const ms = (n: number) => `${Number.isInteger(n) ? n : n.toFixed(3)} ms`;
const statusWord = (code: number) => (code === 2 ? 'error' : code === 1 ? 'ok' : 'unset');

function spanTable(spans: SpanNode[], matching: Set<SpanNode>, tooLong: Set<SpanNode>): string {
  const width = Math.max(0, ...spans.map((s) => s.name.length));
  return spans
    .map((s) => {
      const mark = tooLong.has(s) ? '✗' : matching.has(s) ? '✓' : ' ';
      return `  ${mark} ${s.name.padEnd(width)}  ${statusWord(s.status.code).padEnd(5)}  ${ms(durationOf(s))}`;
    })
    .join('\n');
}
