/**
 * Recorded model calls → fixtures, keyed the way replay reads each request (the latest user
 * text, `turnIndex`, `hasToolResult`), grouped by the test they were recorded in, each with
 * the scrubbed request it came from. Then every recorded request is replayed against the
 * result, test by test, as the mock model will: where another call's fixture would answer
 * it, that fixture gets a `toolName` key (a tool only its own request offers), a
 * `toolCallId` key (the tool call its own request answers), a place before it in the file,
 * or — for requests sent one after another with the same keys, a retried 429 among them —
 * a `sequenceIndex`, so ordered playback serves them in recorded order. What none of these
 * can tell apart (the same keys, sent at the same time, answered differently) fails and
 * names both calls. Last, the user's `redact` hook runs, and the replay is checked once
 * more: a hook that would stop a fixture from answering its own request is refused.
 */
import {
  type Conversation,
  JUDGE_CONTEXT,
  type MatchKeys,
  type NeutralError,
  type NeutralReply,
} from '../conversation';
import { UnderstudyError } from '../errors';
import { recordedFrom, tagRecorded } from '../fixtures/metadata';
import type {
  AimockOverrides,
  Fixture,
  FixtureMatch,
  FixtureResponse,
  FixtureToolCall,
  RecordedRequest,
  RedactHook,
} from '../fixtures/types';
import { FixtureStore } from '../model/fixture-store';
import { REDACTED, scrubSecrets } from '../redact';
import type { PiiScanner } from './pii';
import type { PromptFingerprint } from './prompt-hash';
import { DERIVED_ID, requestHashOf, requestOf } from './request';
import { firstDifference } from './request-diff';

/** One model call as recording captured it. */
export interface RecordedCall {
  /** The call's place in the file's call log (`#n` in messages). */
  index: number;
  protocol: string;
  conversation: Conversation;
  /** Match keys of the request, as replay reads them (personal data as placeholders, the `normalize` hook). */
  keys: MatchKeys;
  fingerprint: PromptFingerprint;
  /** The request as the cassette keeps it (built from the conversation when absent). */
  request?: RecordedRequest;
  requestHash?: string;
  /** The scanner that numbered this request's personal data; the answer is rewritten with it too. */
  pii?: PiiScanner;
  reply?: NeutralReply;
  error?: NeutralError;
  /** The test the call was made in: the fixture's group in the cassette. */
  test?: string;
  /** `sha256:` of the audio the user message was heard from (a recorded spoken turn). */
  heard?: string;
  /** When the request was sent and its answer ended (performance.now()): calls that overlap ran at the same time. */
  startedAt?: number;
  endedAt?: number;
}

export interface BuildOptions {
  strictTurnIndex?: boolean;
  /** Values to blank wherever they appear (the keys in use). */
  secrets?: readonly string[];
  redact?: RedactHook;
  /** How the user named the hook, for messages (`understudy.model.redact`). */
  redactName?: string;
  /** Who is building, for messages: `harness.getRecordedFixtures()`. */
  where?: string;
  /** The recording date written on each fixture (ISO 8601; default now). */
  recordedAt?: string;
}

function toolCallOf(call: NeutralReply['toolCalls'][number], pii?: PiiScanner): FixtureToolCall {
  const text = pii ? pii.replace(call.arguments) : call.arguments;
  let args: FixtureToolCall['arguments'] = text;
  // Readable objects where that loses nothing: the JSON text is exactly what the object prints as.
  try {
    const parsed = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && JSON.stringify(parsed) === text) args = parsed;
  } catch {
    // not JSON: kept as the model wrote it
  }
  return {
    name: call.name,
    arguments: args,
    // A call the provider sent without an id replays without one.
    ...(call.anonymous ? { id: null } : call.id && !DERIVED_ID.test(call.id) ? { id: call.id } : {}),
    ...(call.signature !== undefined ? { thoughtSignature: call.signature } : {}),
    ...(call.itemId !== undefined ? { itemId: call.itemId } : {}),
  };
}

/** A fixture reply's tool calls, given as `toolCalls` or among its ordered `blocks`. */
const callsOf = (response: FixtureResponse): Array<{ name: string }> =>
  response.toolCalls ?? (response.blocks ?? []).filter((b) => b.type === 'toolCall');

/** What identifies the reply on the wire (ids, times, tier), so a replay sends it back as recorded. */
function identityOf(wire: NeutralReply['wire']): Partial<FixtureResponse & AimockOverrides> {
  if (!wire) return {};
  return {
    ...(wire.id !== undefined ? { id: wire.id } : {}),
    ...(wire.created !== undefined ? { created: wire.created } : {}),
    ...(wire.completedAt !== undefined ? { completedAt: wire.completedAt } : {}),
    ...(wire.systemFingerprint !== undefined ? { systemFingerprint: wire.systemFingerprint } : {}),
    ...(wire.serviceTier !== undefined ? { serviceTier: wire.serviceTier } : {}),
    ...(wire.items !== undefined ? { itemIds: { ...wire.items } } : {}),
    ...(wire.latencyMs !== undefined ? { latencyMs: wire.latencyMs } : {}),
  };
}

function responseOf(call: RecordedCall): FixtureResponse {
  if (call.error) {
    const e = call.error;
    return {
      error: {
        message: e.message,
        status: e.status,
        type: e.type,
        ...(e.code !== undefined ? { code: e.code } : {}),
        ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
      },
    };
  }
  const r = call.reply as NeutralReply;
  const pii = call.pii?.active ? call.pii : undefined;
  const toolCalls = r.toolCalls.map((c) => toolCallOf(c, pii));
  const out: FixtureResponse = {};
  const scrub = (text: string) => (pii ? pii.replace(text) : text);
  // Text after a call: the reply in its order, which the protocols that keep it replay so.
  if (r.order)
    out.blocks = r.order.map((step) =>
      'call' in step
        ? { type: 'toolCall', ...toolCalls[step.call] }
        : { type: 'text', text: scrub(step.text) },
    );
  else {
    if (r.content !== null || toolCalls.length === 0) out.content = scrub(r.content ?? '');
    if (toolCalls.length > 0) out.toolCalls = toolCalls;
  }
  if (r.reasoningParts) out.reasoning = r.reasoningParts.map(scrub);
  else if (r.reasoning || (r.reasoning !== undefined && r.reasoningSignature !== undefined))
    out.reasoning = scrub(r.reasoning);
  // The provider's signed reasoning, as it came: the next request must hand back these very bytes.
  if (r.reasoningSignature !== undefined && out.reasoning !== undefined)
    out.reasoningSignature = r.reasoningSignature;
  if (r.redactedThinking?.length) out.redactedThinking = [...r.redactedThinking];
  if (r.finishReason !== (toolCalls.length > 0 ? 'tool_calls' : 'stop')) out.finishReason = r.finishReason;
  const u = r.usage;
  out.usage = {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    ...(u.totalTokens !== u.inputTokens + u.outputTokens ? { totalTokens: u.totalTokens } : {}),
    ...(u.cachedInputTokens > 0 ? { cachedInputTokens: u.cachedInputTokens } : {}),
    ...(u.cacheWriteInputTokens ? { cacheWriteInputTokens: u.cacheWriteInputTokens } : {}),
    ...(u.reasoningTokens > 0 ? { reasoningTokens: u.reasoningTokens } : {}),
  };
  if (r.model && r.model !== call.conversation.model) out.model = r.model;
  Object.assign(out, identityOf(r.wire));
  return out;
}

/** A substring of the text that survives redaction: the longest stretch between `[REDACTED]` marks. */
function survivingSubstring(scrubbed: string): string {
  return scrubbed.split(REDACTED).reduce((a, b) => (b.length > a.length ? b : a), '');
}

/** The recorded request of a call and its hash (built from the conversation for calls that came without). */
export function requestOfCall(call: RecordedCall): { request: RecordedRequest; requestHash: string } {
  call.request ??= requestOf(call.conversation, undefined);
  call.requestHash ??= requestHashOf(call.request, call.fingerprint.toolsHash);
  return { request: call.request, requestHash: call.requestHash };
}

function baseFixture(call: RecordedCall, secrets: readonly string[], recordedAt: string): Fixture {
  const { keys } = call;
  const { request, requestHash } = requestOfCall(call);
  const fixture: Fixture = {
    match: {
      ...(keys.userMessage !== null ? { userMessage: keys.userMessage } : {}),
      turnIndex: keys.turnIndex,
      hasToolResult: keys.hasToolResult,
      ...(keys.context === JUDGE_CONTEXT && { context: JUDGE_CONTEXT }),
    },
    response: responseOf(call),
    metadata: {
      ...(call.test !== undefined ? { test: call.test } : {}),
      recordedAt,
      requestHash,
      ...(call.heard !== undefined && { heard: call.heard }),
      promptHash: call.fingerprint.promptHash,
      systemHash: call.fingerprint.systemHash,
      toolsHash: call.fingerprint.toolsHash,
      request,
    },
  };
  const scrubbed = tagRecorded(scrubSecrets(fixture, { values: secrets }) as Fixture, {
    provider: call.conversation.provider,
    protocol: call.protocol,
    model: call.conversation.model,
  });
  // A key that lost a secret would no longer occur in the request: keep a part that still does.
  const user = scrubbed.match.userMessage;
  if (typeof user === 'string' && user !== keys.userMessage) {
    const part = survivingSubstring(user);
    if (part.trim() === '') delete scrubbed.match.userMessage;
    else scrubbed.match.userMessage = part;
  }
  return scrubbed;
}

function sameKeys(a: MatchKeys, b: MatchKeys): boolean {
  return (
    a.userMessage === b.userMessage &&
    a.turnIndex === b.turnIndex &&
    a.hasToolResult === b.hasToolResult &&
    a.toolCallId === b.toolCallId &&
    a.toolNames.join('\u0000') === b.toolNames.join('\u0000')
  );
}

/** What identifies one reply on the wire (its ids and times), not part of what it answers. */
const IDENTITY = new Set([
  'id',
  'created',
  'completedAt',
  'systemFingerprint',
  'serviceTier',
  'itemIds',
  'latencyMs',
]);

/** Same answer for replay purposes: what the agent sees, usage, reported model and wire identity aside. */
function sameAnswer(a: Fixture, b: Fixture): boolean {
  const strip = ({ usage: _u, model: _m, ...rest }: FixtureResponse) =>
    JSON.stringify(Object.fromEntries(Object.entries(rest).filter(([k]) => !IDENTITY.has(k))));
  return strip(a.response) === strip(b.response);
}

const quote = (text: string | null, max = 60) =>
  text === null ? 'none' : JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

export function describeCall(call: RecordedCall): string {
  const k = call.keys;
  return (
    `model call #${call.index}${call.test ? ` (test "${call.test}")` : ''}: ${call.protocol}, ` +
    `userMessage ${quote(k.userMessage)}, turnIndex ${k.turnIndex}, hasToolResult ${k.hasToolResult}, ` +
    `answers tool call ${k.toolCallId === null ? 'none' : JSON.stringify(k.toolCallId)}, ` +
    `offers tools [${k.toolNames.join(', ')}]`
  );
}

function ambiguity(where: string, served: RecordedCall, owner: RecordedCall): UnderstudyError {
  return new UnderstudyError(
    'RECORD_AMBIGUOUS',
    `${where}: two recorded model calls cannot be told apart, so replay would answer one with the ` +
      `other's response.\n  ${describeCall(owner)}\n  ${describeCall(served)}\n` +
      `Replaying the request of #${served.index} selects the fixture recorded for #${owner.index}, and ` +
      'neither offers a tool the other lacks nor answers a tool call the other does not, and they were ' +
      'sent at the same time, so ordered playback cannot serve them in recorded order either. Give the calls ' +
      'distinct user messages or tools (a subagent could name its own task), or record them in separate runs.',
  );
}

/** Whether two calls were in flight at the same time (then their order on replay is not theirs to keep). */
function overlap(a: RecordedCall, b: RecordedCall): boolean {
  if (a.startedAt === undefined || b.startedAt === undefined) return false;
  const aEnd = a.endedAt ?? a.startedAt;
  const bEnd = b.endedAt ?? b.startedAt;
  return a.startedAt < bEnd && b.startedAt < aEnd;
}

function shapeOf(match: FixtureMatch): string {
  const { sequenceIndex: _, ...rest } = match;
  return JSON.stringify(rest);
}

/** A call a replay of the file makes, in order: recorded ones, and (record-missing) ones the cassette answered. */
export interface ReplayStep {
  test?: string;
  keys: MatchKeys;
  /** A recorded call: its own fixture must answer it. */
  call?: RecordedCall;
  /** A call the cassette answered live: a fixture with the same answer must answer it again. */
  answeredBy?: Fixture;
}

/** Fixtures of one group (one test's calls), keyed until replay gives each call its own. */
function keyGroup(
  group: RecordedCall[],
  test: string | undefined,
  options: BuildOptions,
  recordedAt: string,
): { fixtures: Fixture[]; fixtureOf: Map<RecordedCall, Fixture> } {
  const where = options.where ?? 'recording';
  const secrets = options.secrets ?? [];
  const strict = options.strictTurnIndex ?? false;
  let fixtures: Fixture[] = [];
  const fixtureOf = new Map<RecordedCall, Fixture>();
  const ownerOf = new Map<Fixture, RecordedCall>();
  for (const call of group) {
    const fixture = baseFixture(call, secrets, recordedAt);
    const same = fixtures.find((f) => {
      const owner = ownerOf.get(f) as RecordedCall;
      return (
        sameKeys(owner.keys, call.keys) && owner.requestHash === call.requestHash && sameAnswer(f, fixture)
      );
    });
    if (same) {
      fixtureOf.set(call, same);
      continue;
    }
    fixtures.push(fixture);
    ownerOf.set(fixture, call);
    fixtureOf.set(call, fixture);
  }

  for (let pass = 0, changed = true; changed; pass++) {
    if (pass > fixtures.length * 3 + 3) break;
    changed = false;
    const store = new FixtureStore();
    store.add(fixtures, 'check');
    for (const call of group) {
      const own = fixtureOf.get(call) as Fixture;
      const winner = store.select(call.keys, strict, test)?.entry.fixture;
      if (winner === own) continue;
      if (!winner) {
        throw new UnderstudyError(
          'RECORD_AMBIGUOUS',
          `${where}: the fixture recorded for model call #${call.index} does not answer its own request (its keys were changed by redaction). ${describeCall(call)}`,
        );
      }
      const owner = ownerOf.get(winner) as RecordedCall;
      const m = winner.match;
      const tool = owner.keys.toolNames.find((t) => !call.keys.toolNames.includes(t));
      const answered = owner.keys.toolCallId;
      if (m.toolName === undefined && tool !== undefined) m.toolName = tool;
      else if (
        m.toolCallId === undefined &&
        answered !== null &&
        answered !== '' &&
        !DERIVED_ID.test(answered) &&
        answered !== call.keys.toolCallId
      )
        m.toolCallId = answered;
      else if (shapeOf(winner.match) === shapeOf(own.match)) {
        // The same keys: ordered playback, each request of the shape served in recorded order.
        const shape = shapeOf(own.match);
        const inShape = group.filter((c) => shapeOf((fixtureOf.get(c) as Fixture).match) === shape);
        for (let i = 1; i < inShape.length; i++) {
          const a = inShape[i - 1];
          const b = inShape[i];
          const fa = fixtureOf.get(a) as Fixture;
          const fb = fixtureOf.get(b) as Fixture;
          if (overlap(a, b) && !(fa === fb || (sameAnswer(fa, fb) && a.requestHash === b.requestHash)))
            throw ambiguity(where, b, a);
        }
        const sequenced: Fixture[] = [];
        inShape.forEach((c, i) => {
          const before = fixtureOf.get(c) as Fixture;
          const copy = sequenced.includes(before) ? cloneFixture(before) : before;
          copy.match.sequenceIndex = i;
          sequenced.push(copy);
          if (copy !== before) {
            fixtures.splice(fixtures.indexOf(before) + 1, 0, copy);
            ownerOf.set(copy, c);
          }
          fixtureOf.set(c, copy);
        });
      } else if (!fixtures.slice(0, fixtures.indexOf(winner)).includes(own)) {
        // A looser key caught a more specific request ("hello" in "hello world"): the specific one goes first.
        fixtures = fixtures.filter((f) => f !== own);
        fixtures.splice(fixtures.indexOf(winner), 0, own);
      } else throw ambiguity(where, call, owner);
      changed = true;
      break;
    }
  }
  return { fixtures, fixtureOf };
}

function cloneFixture(f: Fixture): Fixture {
  const copy = JSON.parse(JSON.stringify(f)) as Fixture;
  const from = recordedFrom(f);
  return from ? tagRecorded(copy, from) : copy;
}

/** The groups of a list of calls (by test, in the order each test first appears). */
function groupsOf(calls: readonly RecordedCall[]): Array<[string | undefined, RecordedCall[]]> {
  const groups = new Map<string | undefined, RecordedCall[]>();
  for (const call of calls) {
    const list = groups.get(call.test) ?? [];
    list.push(call);
    groups.set(call.test, list);
  }
  return [...groups];
}

export interface BuiltFixtures {
  /** The new fixtures, grouped by test, after the redact hook. */
  fixtures: Fixture[];
  /** The fixture each replayable call is answered by (after the hook). */
  fixtureOf: Map<RecordedCall, Fixture>;
  /** The same, before the hook ran (to name what the hook changed). */
  beforeHook: Map<Fixture, Fixture>;
}

/** Keys, scrubs and redacts the calls' fixtures; `checkReplay` then proves they replay. */
export function buildFixtures(calls: readonly RecordedCall[], options: BuildOptions = {}): BuiltFixtures {
  const recordedAt = options.recordedAt ?? new Date().toISOString();
  // A connection that failed (status 0) has no answer a fixture could replay.
  const kept = calls.filter((c) => c.reply || (c.error && c.error.status >= 200));
  for (const call of kept) requestOfCall(call);
  const fixtures: Fixture[] = [];
  const fixtureOf = new Map<RecordedCall, Fixture>();
  for (const [test, group] of groupsOf(kept)) {
    const keyed = keyGroup(group, test, options, recordedAt);
    fixtures.push(...keyed.fixtures);
    for (const [c, f] of keyed.fixtureOf) fixtureOf.set(c, f);
  }
  const beforeHook = new Map<Fixture, Fixture>();
  if (!options.redact) {
    for (const f of fixtures) beforeHook.set(f, f);
    return { fixtures, fixtureOf, beforeHook };
  }
  const hooked = new Map<Fixture, Fixture>();
  const out = fixtures.map((f) => {
    const snapshot = cloneFixture(f);
    const result = options.redact?.(f);
    const after = !result || typeof result !== 'object' || result === f ? f : result;
    const from = recordedFrom(f);
    if (from && after !== f) tagRecorded(after, from);
    hooked.set(f, after);
    beforeHook.set(after, snapshot);
    return after;
  });
  for (const [c, f] of fixtureOf) fixtureOf.set(c, hooked.get(f) as Fixture);
  return { fixtures: out, fixtureOf, beforeHook };
}

/** The first path where two values differ (`match.userMessage`), for naming what a hook changed. */
function changedPath(a: unknown, b: unknown, path: string): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const p = changedPath(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`,
      );
      if (p) return p;
    }
  }
  return path;
}

function hookBroke(
  options: BuildOptions,
  call: RecordedCall,
  field: string | undefined,
  consequence: string,
): UnderstudyError {
  const where = options.where ?? 'recording';
  const hook = options.redactName ?? 'the redact hook';
  if (!field)
    return new UnderstudyError(
      'RECORD_AMBIGUOUS',
      `${where}: the fixture recorded for model call #${call.index} would not replay: ${consequence}. ${describeCall(call)}`,
    );
  return new UnderstudyError(
    'RECORD_REDACT_BREAKS_REPLAY',
    `${where}: the redact hook (${hook}) changed ${field} of the fixture recorded for model call #${call.index}` +
      `${call.test ? ` (test "${call.test}")` : ''}, so replay would not use it as recorded: ${consequence}. ` +
      'Nothing was written. Leave match keys and the recorded request as they are: rewrite values that vary ' +
      'with understudy.model.normalize (applied on record and on replay alike), and replace personal data ' +
      'with the redact: { pii } option, whose placeholders replay computes too.',
  );
}

/**
 * Replays `steps` against `fixtures` (the whole file about to be written), test by test, the
 * way the mock model will, and throws when a recorded call would not get its own fixture,
 * would be reported stale by it, or would be answered with a tool its request does not offer.
 */
export function checkReplay(
  fixtures: readonly Fixture[],
  steps: readonly ReplayStep[],
  built: BuiltFixtures,
  options: BuildOptions = {},
): void {
  const strict = options.strictTurnIndex ?? false;
  const store = new FixtureStore();
  store.add(fixtures, 'check');
  let test: string | undefined | null = null;
  for (const step of steps) {
    if (step.test !== test) {
      store.resetCounts();
      test = step.test;
    }
    const winner = store.select(step.keys, strict, step.test)?.entry.fixture;
    if (step.answeredBy) {
      if (winner && winner !== step.answeredBy && !sameAnswer(winner, step.answeredBy)) {
        const where = options.where ?? 'recording';
        throw new UnderstudyError(
          'RECORD_AMBIGUOUS',
          `${where}: a fixture added now would answer a request that the cassette's own fixture ` +
            `${step.answeredBy.metadata?.test ? `(test "${step.answeredBy.metadata.test}") ` : ''}answered in this run, ` +
            'so the file would no longer replay as it did. Record the whole file again (record mode) instead of record-missing.',
        );
      }
      continue;
    }
    const call = step.call;
    if (!call) continue;
    const own = built.fixtureOf.get(call);
    if (!own) continue; // a dropped connection: nothing to replay
    const before = built.beforeHook.get(own) ?? own;
    if (winner !== own) {
      const field = changedPath(before.match, own.match, 'match');
      throw hookBroke(
        options,
        call,
        field,
        winner
          ? `its request would be answered by another fixture${winner.metadata?.test ? ` (test "${winner.metadata.test}")` : ''}`
          : `no fixture would match its request (${describeCall(call)})`,
      );
    }
    const recorded = own.metadata?.request;
    const { request } = requestOfCall(call);
    if (recorded) {
      const drift = firstDifference(recorded, request, {
        recorded: own.metadata?.toolsHash,
        live: call.fingerprint.toolsHash,
      });
      if (drift) {
        const field = changedPath(before.metadata?.request, recorded, 'metadata.request');
        throw hookBroke(options, call, field, `every replay would report it stale, as ${drift}`);
      }
    }
    const offered = call.conversation.tools.map((t) => t.name);
    const missing = callsOf(own.response).find((t) => !offered.includes(t.name));
    if (missing && callsOf(before.response).every((t) => offered.includes(t.name))) {
      const key = own.response.blocks ? 'blocks' : 'toolCalls';
      const field = changedPath(before.response[key], own.response[key], `response.${key}`);
      throw hookBroke(
        options,
        call,
        field,
        `it would call ${JSON.stringify(missing.name)}, a tool the request does not offer`,
      );
    }
  }
}

/** Replay steps of recorded calls in call order. */
export function stepsOf(calls: readonly RecordedCall[]): ReplayStep[] {
  return calls.map((call) => ({
    ...(call.test !== undefined ? { test: call.test } : {}),
    keys: call.keys,
    call,
  }));
}

/** Recorded calls (in call order) → fixtures that replay each of them to its own response. */
export function fixturesFromCalls(calls: readonly RecordedCall[], options: BuildOptions = {}): Fixture[] {
  const built = buildFixtures(calls, options);
  checkReplay(built.fixtures, stepsOf(calls), built, options);
  return built.fixtures;
}
