/**
 * The first difference between the request a fixture was recorded from and the request it
 * answers now, in words a reviewer acts on: `the tool result of lookup_order
 * (call_lookup_A1001) changed: status "refunded" → "already_refunded"`. Checked in the
 * order that explains the most: model, system prompt, tools, messages, sampling settings.
 */
import type { RecordedMessage, RecordedRequest } from '../fixtures/types';
import { canonical } from './prompt-hash';
import { sameText } from './request';

const MAX = 60;

/** A short, quoted excerpt of each text around where they first differ. */
function excerpts(a: string, b: string): [string, string] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const cut = (t: string) => {
    // A few characters more beat an ellipsis that hides them.
    let from = Math.max(0, p - 20);
    if (from < 12) from = 0;
    let to = Math.min(t.length, Math.max(t.length - s + 20, from + 1));
    if (t.length - to < 12) to = t.length;
    let piece = t.slice(from, to);
    if (piece.length > MAX) piece = `${piece.slice(0, MAX)}…`;
    return JSON.stringify(`${from > 0 ? '…' : ''}${piece}${to < t.length ? '…' : ''}`);
  };
  return [cut(a), cut(b)];
}

function textChange(a: string, b: string): string {
  const [x, y] = excerpts(a, b);
  return `${x} → ${y}`;
}

const shown = (v: unknown): string => {
  if (v === undefined) return '(missing)';
  const text = typeof v === 'string' ? JSON.stringify(v) : canonical(v);
  return text.length > MAX ? `${text.slice(0, MAX)}…` : text;
};

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The first leaf where two JSON values differ: `status "refunded" → "already_refunded"`. */
export function valueDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a === 'string' && typeof b === 'string') {
    if (sameText(a, b)) return undefined;
    return `${path ? `${path} ` : ''}${shown(a)} → ${shown(b)}`;
  }
  const bothObjects =
    a !== null &&
    b !== null &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) {
    if (canonical(a) === canonical(b)) return undefined;
    return `${path ? `${path} ` : ''}${shown(a)} → ${shown(b)}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = valueDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])];
  for (const key of keys) {
    const d = valueDifference(ra[key], rb[key], path ? `${path}.${key}` : key);
    if (d) return d;
  }
  return undefined;
}

/** Two texts that may hold JSON: the first differing field when both parse, else the excerpts. */
function contentChange(a: string, b: string): string | undefined {
  if (sameText(a, b)) return undefined;
  const x = parse(a);
  const y = parse(b);
  if (x !== undefined && y !== undefined && typeof x === 'object' && typeof y === 'object')
    return valueDifference(x, y) ?? textChange(a, b);
  return textChange(a, b);
}

function kind(m: RecordedMessage): string {
  if (m.role === 'user') return 'a user message';
  if (m.role === 'tool') return `the tool result of ${m.tool ?? 'a tool'}`;
  return m.toolCalls?.length ? 'an assistant message with tool calls' : 'an assistant message';
}

const callName = (c: { name: string; id?: string }) => (c.id ? `${c.name} (${c.id})` : c.name);

function messageDifference(a: RecordedMessage, b: RecordedMessage, n: number): string | undefined {
  if (a.role !== b.role) return `message ${n} changed: it was ${kind(a)}, now it is ${kind(b)}`;
  if (a.role === 'tool') {
    const who = `the tool result of ${a.tool ?? 'a tool'}${a.toolCallId ? ` (${a.toolCallId})` : ''}`;
    if ((a.toolCallId ?? '') !== (b.toolCallId ?? ''))
      return `message ${n} answers another tool call: ${a.toolCallId ?? 'none'} → ${b.toolCallId ?? 'none'}`;
    if (Boolean(a.isError) !== Boolean(b.isError))
      return `${who} ${b.isError ? 'is now an error' : 'is no longer an error'}`;
    const d = contentChange(a.text ?? '', b.text ?? '');
    return d ? `${who} changed: ${d}` : undefined;
  }
  if (a.role === 'user') {
    const d = contentChange(a.text ?? '', b.text ?? '');
    return d ? `the user message (message ${n}) changed: ${d}` : undefined;
  }
  const text = contentChange(a.text ?? '', b.text ?? '');
  if (text) return `the assistant's reply (message ${n}) changed: ${text}`;
  const ca = a.toolCalls ?? [];
  const cb = b.toolCalls ?? [];
  const names = (cs: typeof ca) => cs.map((c) => c.name).join(', ') || 'none';
  if (names(ca) !== names(cb))
    return `the assistant's tool calls (message ${n}) changed: ${names(ca)} → ${names(cb)}`;
  for (let i = 0; i < ca.length; i++) {
    if ((ca[i].id ?? '') !== (cb[i].id ?? ''))
      return `the id of the ${ca[i].name} call (message ${n}) changed: ${ca[i].id ?? 'none'} → ${cb[i].id ?? 'none'}`;
    const d = valueDifference(ca[i].arguments, cb[i].arguments);
    if (d) return `the arguments of ${callName(ca[i])} changed: ${d}`;
  }
  return undefined;
}

/**
 * In words, the first way `live` differs from `recorded`; undefined when it does not.
 * `toolsHash` of each tells a changed description or schema behind the same tool names.
 */
export function firstDifference(
  recorded: RecordedRequest,
  live: RecordedRequest,
  toolsHash: { recorded?: string; live: string },
): string | undefined {
  if (recorded.model !== live.model)
    return `the model changed: ${JSON.stringify(recorded.model)} → ${JSON.stringify(live.model)}`;
  const system = contentChange(recorded.system ?? '', live.system ?? '');
  if (system) return `the system prompt changed: ${system}`;
  const before = recorded.tools ?? [];
  const added = live.tools.filter((t) => !before.includes(t));
  const removed = before.filter((t) => !live.tools.includes(t));
  if (added.length > 0 || removed.length > 0) {
    const parts: string[] = [];
    if (added.length > 0) parts.push(`added ${added.map((t) => JSON.stringify(t)).join(', ')}`);
    if (removed.length > 0) parts.push(`removed ${removed.map((t) => JSON.stringify(t)).join(', ')}`);
    return `the tool manifest changed (${parts.join('; ')})`;
  }
  if (toolsHash.recorded !== undefined && toolsHash.recorded !== toolsHash.live)
    return 'the tool manifest changed (same tool names: a description or a parameter schema differs)';
  const a = recorded.messages ?? [];
  const b = live.messages;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = messageDifference(a[i], b[i], i + 1);
    if (d) return d;
  }
  if (b.length > a.length) {
    const extra = b.length - a.length;
    const first = b[a.length];
    return (
      `the request has ${extra} more message${extra === 1 ? '' : 's'} than the recorded one ` +
      `(from message ${a.length + 1}: ${kind(first)}${first.text ? ` ${shown(first.text)}` : ''})`
    );
  }
  if (a.length > b.length) {
    const fewer = a.length - b.length;
    return `the request has ${fewer} message${fewer === 1 ? '' : 's'} fewer than the recorded one (it ends at message ${b.length})`;
  }
  const sampling = valueDifference(recorded.sampling ?? {}, live.sampling ?? {});
  if (sampling) return `the sampling settings changed: ${sampling}`;
  return undefined;
}
