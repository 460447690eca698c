import type { MatchKeys } from '../conversation';
import { compilePattern, isPattern, modelMatcher } from '../fixtures/patterns';
import type { Fixture, FixtureMatch, TextPattern } from '../fixtures/types';

/** A match field that failed, with the value it wanted and the value it saw. */
export interface Miss {
  field: keyof FixtureMatch;
  expected: unknown;
  actual: unknown;
}

type Test = (keys: MatchKeys) => boolean;

/** One fixture's match fields turned into predicates once, at registration. */
export interface CompiledMatch {
  /** Content predicates: every one must hold (turnIndex and sequenceIndex are positional and kept apart). */
  tests: Array<{
    field: keyof FixtureMatch;
    expected: unknown;
    actual: (k: MatchKeys) => unknown;
    test: Test;
  }>;
  turnIndex: number | undefined;
  sequenceIndex: number | undefined;
  /** The literal substring the user message must contain, for the index; null when absent or a pattern. */
  userLiteral: string | null;
}

function textTest(
  field: keyof FixtureMatch,
  value: string | TextPattern,
  read: (k: MatchKeys) => string | null,
) {
  if (isPattern(value)) {
    const re = compilePattern(value);
    return {
      field,
      expected: value,
      actual: read,
      test: (k: MatchKeys) => re.test(read(k) ?? '') && read(k) !== null,
    };
  }
  return { field, expected: value, actual: read, test: (k: MatchKeys) => read(k)?.includes(value) ?? false };
}

function modelTest(value: string | TextPattern): Test {
  const matches = modelMatcher(value);
  return (k) => matches(k.model);
}

export function compileMatch(match: FixtureMatch): CompiledMatch {
  const tests: CompiledMatch['tests'] = [];
  const m = match;
  if (m.userMessage !== undefined) tests.push(textTest('userMessage', m.userMessage, (k) => k.userMessage));
  if (m.hasToolResult !== undefined) {
    const want = m.hasToolResult;
    tests.push({
      field: 'hasToolResult',
      expected: want,
      actual: (k) => k.hasToolResult,
      test: (k) => k.hasToolResult === want,
    });
  }
  if (m.toolName !== undefined) {
    const want = m.toolName;
    tests.push({
      field: 'toolName',
      expected: want,
      actual: (k) => k.toolNames,
      test: (k) => k.toolNames.includes(want),
    });
  }
  if (m.toolCallId !== undefined) {
    const want = m.toolCallId;
    tests.push({
      field: 'toolCallId',
      expected: want,
      actual: (k) => k.toolCallId,
      test: (k) => k.toolCallId === want,
    });
  }
  if (m.toolResultContains !== undefined) {
    const want = m.toolResultContains;
    tests.push({
      field: 'toolResultContains',
      expected: want,
      actual: (k) => k.toolResult,
      test: (k) => k.toolResult?.includes(want) ?? false,
    });
  }
  if (m.model !== undefined)
    tests.push({ field: 'model', expected: m.model, actual: (k) => k.model, test: modelTest(m.model) });
  if (m.systemMessage !== undefined) {
    const sm = m.systemMessage;
    if (Array.isArray(sm)) {
      tests.push({
        field: 'systemMessage',
        expected: sm,
        actual: (k) => k.systemMessage,
        test: (k) => sm.every((needle) => k.systemMessage.includes(needle)),
      });
    } else tests.push(textTest('systemMessage', sm, (k) => k.systemMessage || null));
  }
  // aimock's routing keys: the request's output format and its X-AIMock-Context header.
  for (const field of ['responseFormat', 'context'] as const) {
    const want = m[field];
    if (want !== undefined)
      tests.push({ field, expected: want, actual: (k) => k[field] ?? null, test: (k) => k[field] === want });
  }
  return {
    tests,
    turnIndex: m.turnIndex,
    sequenceIndex: m.sequenceIndex,
    userLiteral: typeof m.userMessage === 'string' ? m.userMessage : null,
  };
}

/** Every content field that fails, in field order; empty when the fixture's content matches. */
export function missesOf(compiled: CompiledMatch, keys: MatchKeys): Miss[] {
  const misses: Miss[] = [];
  for (const t of compiled.tests) {
    if (!t.test(keys)) misses.push({ field: t.field, expected: t.expected, actual: t.actual(keys) });
  }
  return misses;
}

export function contentMatches(compiled: CompiledMatch, keys: MatchKeys): boolean {
  for (const t of compiled.tests) if (!t.test(keys)) return false;
  return true;
}

export interface Candidate {
  /** Registration order: lower wins ties. */
  order: number;
  fixture: Fixture;
  compiled: CompiledMatch;
}

/**
 * Picks among fixtures whose content matched, using turnIndex only as a position hint
 * (the relaxed rule aimock replays with): the closest turnIndex at or behind the
 * thread's assistant count wins; at the exact position an earlier-registered plain
 * fixture still wins; a fixture scripted for a later turn answers only when nothing
 * else can; registration order breaks every tie.
 */
export function selectByTurnIndex<C extends Candidate>(candidates: C[], turnIndex: number): C {
  let fallback: C | undefined;
  let best: C | undefined;
  let lowestAhead: C | undefined;
  for (const c of candidates) {
    const t = c.compiled.turnIndex;
    if (t === undefined) {
      if (!fallback) fallback = c;
    } else if (t <= turnIndex) {
      if (!best || t > (best.compiled.turnIndex as number)) best = c;
    } else if (!lowestAhead || t < (lowestAhead.compiled.turnIndex as number)) lowestAhead = c;
  }
  if (best) {
    if (best.compiled.turnIndex === turnIndex && fallback && fallback.order < best.order) return fallback;
    return best;
  }
  return (fallback ?? lowestAhead) as C;
}
