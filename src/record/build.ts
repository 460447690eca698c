/**
 * Recorded model calls → fixtures, keyed the way replay reads each request: the latest
 * user text, `turnIndex`, `hasToolResult`. Then every recorded request is replayed against
 * the result; where another call's fixture would answer it, that fixture gets a `toolName`
 * (a tool only its own request offers) or `toolCallId` (the tool call its own request
 * answers) key, and where nothing tells two calls apart, building fails and names both.
 */
import type { Conversation, MatchKeys, NeutralError, NeutralReply } from '../conversation';
import { UnderstudyError } from '../errors';
import { recordedFrom, tagRecorded } from '../fixtures/metadata';
import type { Fixture, FixtureResponse, FixtureToolCall, RedactHook } from '../fixtures/types';
import { FixtureStore } from '../model/fixture-store';
import { REDACTED, scrubSecrets } from '../redact';
import type { PromptFingerprint } from './prompt-hash';

/** One model call as recording captured it. */
export interface RecordedCall {
  /** The call's place in the file's call log (`#n` in messages). */
  index: number;
  protocol: string;
  conversation: Conversation;
  /** Match keys of the request, after the `normalize` hook. */
  keys: MatchKeys;
  fingerprint: PromptFingerprint;
  reply?: NeutralReply;
  error?: NeutralError;
  /** The test the call was made in, for messages. */
  test?: string;
}

export interface BuildOptions {
  strictTurnIndex?: boolean;
  /** Values to blank wherever they appear (the keys in use). */
  secrets?: readonly string[];
  redact?: RedactHook;
  /** Who is building, for messages: `harness.getRecordedFixtures()`. */
  where?: string;
}

/** Tool call ids the Gemini codec derives for calls that came without one: not stable, not keys. */
const DERIVED_ID = /^call_gemini_t\d+_\d+$/;

function toolCallOf(call: NeutralReply['toolCalls'][number]): FixtureToolCall {
  let args: FixtureToolCall['arguments'] = call.arguments;
  // Readable objects where that loses nothing: the JSON text is exactly what the object prints as.
  try {
    const parsed = JSON.parse(call.arguments);
    if (parsed !== null && typeof parsed === 'object' && JSON.stringify(parsed) === call.arguments)
      args = parsed;
  } catch {
    // not JSON: kept as the model wrote it
  }
  return {
    name: call.name,
    arguments: args,
    ...(call.id && !DERIVED_ID.test(call.id) ? { id: call.id } : {}),
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
  const toolCalls = r.toolCalls.map(toolCallOf);
  const out: FixtureResponse = {};
  if (r.content !== null || toolCalls.length === 0) out.content = r.content ?? '';
  if (toolCalls.length > 0) out.toolCalls = toolCalls;
  if (r.reasoning) out.reasoning = r.reasoning;
  if (r.finishReason !== (toolCalls.length > 0 ? 'tool_calls' : 'stop')) out.finishReason = r.finishReason;
  const u = r.usage;
  out.usage = {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    ...(u.totalTokens !== u.inputTokens + u.outputTokens ? { totalTokens: u.totalTokens } : {}),
    ...(u.cachedInputTokens > 0 ? { cachedInputTokens: u.cachedInputTokens } : {}),
    ...(u.reasoningTokens > 0 ? { reasoningTokens: u.reasoningTokens } : {}),
  };
  if (r.model && r.model !== call.conversation.model) out.model = r.model;
  return out;
}

/** A substring of the text that survives redaction: the longest stretch between `[REDACTED]` marks. */
function survivingSubstring(scrubbed: string): string {
  return scrubbed.split(REDACTED).reduce((a, b) => (b.length > a.length ? b : a), '');
}

function baseFixture(call: RecordedCall, secrets: readonly string[]): Fixture {
  const { keys } = call;
  const fixture: Fixture = {
    match: {
      ...(keys.userMessage !== null ? { userMessage: keys.userMessage } : {}),
      turnIndex: keys.turnIndex,
      hasToolResult: keys.hasToolResult,
    },
    response: responseOf(call),
    metadata: {
      promptHash: call.fingerprint.promptHash,
      systemHash: call.fingerprint.systemHash,
      toolsHash: call.fingerprint.toolsHash,
      tools: call.fingerprint.tools,
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

function signature(c: Conversation): string {
  return JSON.stringify([c.model, c.messages, c.tools]);
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

/** Same answer for replay purposes: what the agent sees, usage and reported model aside. */
function sameAnswer(a: Fixture, b: Fixture): boolean {
  const strip = ({ usage: _u, model: _m, ...rest }: FixtureResponse) => JSON.stringify(rest);
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
      `neither offers a tool the other lacks nor answers a tool call the other does not. Give the calls ` +
      'distinct user messages or tools (a subagent could name its own task), or record them in separate runs.',
  );
}

/**
 * Drops a transient provider error (429, 5xx, a dropped connection) when a later call sent
 * the very same request: the SDK retried it, and the retry's answer is the one to keep.
 */
function withoutRetriedErrors(calls: readonly RecordedCall[]): RecordedCall[] {
  return calls.filter((call, i) => {
    const status = call.error?.status;
    if (status === undefined || (status !== 0 && status !== 429 && status < 500)) return true;
    const sig = signature(call.conversation);
    return !calls.slice(i + 1).some((later) => signature(later.conversation) === sig);
  });
}

/** Recorded calls (in call order) → fixtures that replay each of them to its own response. */
export function fixturesFromCalls(calls: readonly RecordedCall[], options: BuildOptions = {}): Fixture[] {
  const where = options.where ?? 'recording';
  const secrets = options.secrets ?? [];
  // A connection that failed (status 0) has no answer a fixture could replay.
  const kept = withoutRetriedErrors(calls.filter((c) => c.reply || (c.error && c.error.status >= 200)));

  // One fixture per distinct request shape and answer; `owners[i]` is the call it was recorded from.
  const fixtures: Fixture[] = [];
  const owners: RecordedCall[] = [];
  const fixtureOf = new Map<RecordedCall, Fixture>();
  for (const call of kept) {
    const fixture = baseFixture(call, secrets);
    const same = fixtures.findIndex((f, i) => sameKeys(owners[i].keys, call.keys) && sameAnswer(f, fixture));
    if (same !== -1) {
      fixtureOf.set(call, fixtures[same]);
      continue;
    }
    fixtures.push(fixture);
    owners.push(call);
    fixtureOf.set(call, fixture);
  }

  // Replay every request; where another call's fixture answers it, key that fixture apart.
  const strict = options.strictTurnIndex ?? false;
  for (let pass = 0, changed = true; changed; pass++) {
    if (pass > fixtures.length * 2 + 2) break;
    changed = false;
    const store = new FixtureStore();
    store.add(fixtures, 'check');
    for (const call of kept) {
      const own = fixtureOf.get(call) as Fixture;
      const winner = store.select(call.keys, strict)?.entry.fixture;
      if (winner === own || (winner && sameAnswer(winner, own))) continue;
      if (!winner) {
        throw new UnderstudyError(
          'RECORD_AMBIGUOUS',
          `${where}: the fixture recorded for model call #${call.index} does not answer its own request (its keys were changed by redaction). ${describeCall(call)}`,
        );
      }
      const owner = owners[fixtures.indexOf(winner)];
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
      else throw ambiguity(where, call, owner);
      changed = true;
      break;
    }
  }

  if (!options.redact) return fixtures;
  return fixtures.map((f) => {
    const out = options.redact?.(f);
    if (!out || typeof out !== 'object' || out === f) return f;
    const from = recordedFrom(f);
    return from ? tagRecorded(out, from) : out;
  });
}
