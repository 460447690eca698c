import type { MatchKeys } from '../conversation';
import { sourceOf } from '../fixtures/types';
import type { Entry } from './fixture-store';
import { type Miss, missesOf } from './match';

export interface NearMiss {
  order: number;
  label: string;
  misses: Miss[];
}

const NEAREST = 3;

function show(value: unknown): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === 'string')
    return JSON.stringify(value.length > 120 ? `${value.slice(0, 117)}...` : value);
  return JSON.stringify(value);
}

export function labelOf(entry: Entry): string {
  const src = sourceOf(entry.fixture);
  const name = entry.fixture.id ? ` "${entry.fixture.id}"` : '';
  const where = src?.file ? ` (${src.file}${src.path ? ` ${src.path}` : ''})` : '';
  return `fixture #${entry.order}${name}${where}`;
}

/** The fixtures that came closest, fewest failed fields first, with every field that failed. */
export function nearestMisses(
  entries: readonly Entry[],
  keys: MatchKeys,
  strictTurnIndex: boolean,
  servedCount: (e: Entry) => number,
): NearMiss[] {
  const scored: NearMiss[] = entries.map((e) => {
    const misses = missesOf(e.compiled, keys);
    if (strictTurnIndex && e.compiled.turnIndex !== undefined && e.compiled.turnIndex !== keys.turnIndex) {
      misses.push({ field: 'turnIndex', expected: e.compiled.turnIndex, actual: keys.turnIndex });
    }
    if (misses.length === 0 && e.compiled.sequenceIndex !== undefined) {
      misses.push({ field: 'sequenceIndex', expected: e.compiled.sequenceIndex, actual: servedCount(e) });
    }
    return { order: e.order, label: labelOf(e), misses };
  });
  scored.sort((a, b) => a.misses.length - b.misses.length || a.order - b.order);
  return scored.slice(0, NEAREST);
}

function describeMiss(m: Miss): string {
  switch (m.field) {
    case 'userMessage':
      return m.actual === null
        ? `userMessage: wanted ${show(m.expected)}, the request has no user text`
        : `userMessage: ${show(m.expected)} does not occur in ${show(m.actual)}`;
    case 'toolName':
      return `toolName: wanted ${show(m.expected)}, the request offers ${show(m.actual)}`;
    case 'toolCallId':
      return m.actual === null
        ? `toolCallId: wanted ${show(m.expected)}, the request does not end with a tool result`
        : `toolCallId: wanted ${show(m.expected)}, the request answers ${show(m.actual)}`;
    case 'sequenceIndex':
      return `sequenceIndex: answers only after ${m.expected} earlier serve(s) of its match, there were ${m.actual}`;
    default:
      return `${m.field}: wanted ${show(m.expected)}, the request has ${show(m.actual)}`;
  }
}

export function describeKeys(keys: MatchKeys): string {
  return [
    `userMessage: ${show(keys.userMessage)}`,
    `turnIndex: ${keys.turnIndex}`,
    `hasToolResult: ${keys.hasToolResult}`,
    `toolCallId: ${show(keys.toolCallId)}`,
    `toolNames: ${show(keys.toolNames)}`,
    `model: ${show(keys.model)}`,
    ...(keys.systemMessage ? [`systemMessage: ${show(keys.systemMessage)}`] : []),
  ]
    .map((l) => `    ${l}`)
    .join('\n');
}

export function describeUnmatched(
  what: string,
  keys: MatchKeys,
  near: NearMiss[],
  registered: number,
): string {
  const lines = [`No fixture matched ${what}.`, '  Request match keys:', describeKeys(keys)];
  if (registered === 0) {
    lines.push('  No fixtures are registered: call understudy.model.use(...), pass fixtures to the harness,');
    lines.push('  or list files in testEnvironmentOptions.understudy.fixtures.');
  } else {
    lines.push(`  Nearest fixtures (${near.length} of ${registered} registered):`);
    for (const n of near) {
      lines.push(`    ${n.label}`);
      for (const m of n.misses) lines.push(`      - ${describeMiss(m)}`);
    }
  }
  return lines.join('\n');
}
