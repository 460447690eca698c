import {
  type Conversation,
  type MatchKeys,
  type NeutralError,
  type NeutralReply,
  type NeutralToolCall,
  orderOf,
  type ReplyStep,
  type WireOverrides,
} from '../conversation';
import type { AimockOverrides, Fixture, FixtureBlock } from '../fixtures/types';
import { derivedCallId } from '../providers/gemini/ids';
import { usageFor } from './usage';

/** FNV-1a, base36: short, stable ids without a crypto dependency on the hot path. */
function hash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return ((h1 >>> 0).toString(36) + (h2 >>> 0).toString(36)).padEnd(14, '0');
}

/**
 * Tool call ids come from the fixture, else from the fixture, the call's place in it and
 * the thread position: the same run gives the same ids whatever tests ran before it, and
 * a fixture that answers twice in one thread never repeats an id.
 */
function toolCallId(fixtureKey: string, keys: MatchKeys, i: number, name: string, prefix: string): string {
  const h = hash(`${fixtureKey}|${keys.turnIndex}|${keys.userMessage ?? ''}|${i}|${name}`);
  return `${prefix}${(h + hash(h)).slice(0, 24)}`;
}

export function fixtureKey(fixture: Fixture, order: number): string {
  return fixture.id ?? `#${order}`;
}

export function replyFrom(
  fixture: Fixture,
  order: number,
  conversation: Conversation,
  keys: MatchKeys,
  idPrefix = 'call_',
): NeutralReply {
  const r = fixture.response;
  const key = fixtureKey(fixture, order);
  // Ordered blocks, when given, are the reply: their texts, their calls, and the order of both.
  const blocks = r.blocks?.length ? r.blocks : undefined;
  const calls = blocks ? blocks.flatMap((b) => (b.type === 'toolCall' ? [b] : [])) : (r.toolCalls ?? []);
  const toolCalls: NeutralToolCall[] = calls.map((c, i) => {
    const call: NeutralToolCall = {
      // A call the provider sent without an id gets the one Gemini's codec derives for it.
      id:
        c.id ??
        (c.id === null ? derivedCallId(keys.turnIndex, i) : toolCallId(key, keys, i, c.name, idPrefix)),
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    };
    if (c.id === null) call.anonymous = true;
    if ('thoughtSignature' in c && c.thoughtSignature !== undefined) call.signature = c.thoughtSignature;
    if ('itemId' in c && c.itemId !== undefined) call.itemId = c.itemId;
    return call;
  });
  const texts = blocks?.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  const content = texts ? (texts.length > 0 ? texts.join('') : null) : (r.content ?? null);
  const steps = blocks && orderOfBlocks(blocks);
  // A summary in parts (Responses) is one text elsewhere.
  const parts = Array.isArray(r.reasoning) ? r.reasoning : undefined;
  const reasoning = Array.isArray(r.reasoning) ? r.reasoning.join('\n\n') : r.reasoning;
  // Reasoning the provider showed no text of still has its token (a recorded signature).
  const signed = typeof reasoning === 'string' && r.reasoningSignature !== undefined;
  const wire = wireOverridesOf(r);
  return {
    content: content === null && toolCalls.length === 0 && r.refusal === undefined ? '' : content,
    ...(reasoning || signed ? { reasoning } : {}),
    ...(parts && parts.length > 1 ? { reasoningParts: parts } : {}),
    ...(signed ? { reasoningSignature: r.reasoningSignature } : {}),
    ...(r.redactedThinking?.length ? { redactedThinking: r.redactedThinking } : {}),
    ...(r.webSearches?.length ? { webSearches: r.webSearches } : {}),
    toolCalls,
    finishReason: r.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: usageFor(conversation, content, toolCalls, r.usage),
    model: r.model ?? conversation.model,
    ...(r.refusal !== undefined ? { refusal: r.refusal } : {}),
    ...(wire ? { wire } : {}),
    ...(steps ? { order: steps } : {}),
  };
}

function orderOfBlocks(blocks: readonly FixtureBlock[]): ReplyStep[] | undefined {
  let call = 0;
  return orderOf(blocks.map((b) => (b.type === 'text' ? { text: b.text } : { call: call++ })));
}

/** Usage fields with no neutral counterpart, sent as given on Chat (OpenRouter's cost and BYOK facts). */
const USAGE_EXTRAS = ['cost', 'cost_details', 'is_byok', 'native_tokens_prompt', 'native_tokens_completion'];

/** aimock's response overrides: values the wire reply carries instead of the ones the mock makes. */
function wireOverridesOf(r: Fixture['response']): WireOverrides | undefined {
  const a = r as Fixture['response'] & AimockOverrides;
  let wire: WireOverrides | undefined;
  if (a.id !== undefined) wire = { ...wire, id: a.id };
  if (a.created !== undefined) wire = { ...wire, created: a.created };
  if (a.systemFingerprint !== undefined) wire = { ...wire, systemFingerprint: a.systemFingerprint };
  if (a.provider !== undefined) wire = { ...wire, provider: a.provider };
  if (a.nativeFinishReason !== undefined) wire = { ...wire, nativeFinishReason: a.nativeFinishReason };
  if (r.serviceTier !== undefined) wire = { ...wire, serviceTier: r.serviceTier };
  if (r.completedAt !== undefined) wire = { ...wire, completedAt: r.completedAt };
  if (r.itemIds !== undefined) wire = { ...wire, items: { ...r.itemIds } };
  if (r.latencyMs !== undefined) wire = { ...wire, latencyMs: r.latencyMs };
  const given = r.usage as Record<string, unknown> | undefined;
  if (given)
    for (const key of USAGE_EXTRAS)
      if (given[key] !== undefined) wire = { ...wire, usage: { ...wire?.usage, [key]: given[key] } };
  return wire;
}

const DEFAULT_ERROR_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
};

export function errorFrom(fixture: Fixture): NeutralError | undefined {
  const r = fixture.response;
  if (!r.error) return undefined;
  const status = r.error.status ?? r.status ?? 500;
  return {
    status,
    type: r.error.type ?? DEFAULT_ERROR_TYPE[status] ?? 'api_error',
    message: r.error.message,
    ...(r.error.code !== undefined ? { code: r.error.code } : {}),
    ...(r.error.param !== undefined && r.error.param !== null ? { param: r.error.param } : {}),
    ...(r.error.metadata !== undefined ? { metadata: r.error.metadata } : {}),
    ...((r.error.retryAfter ?? r.retryAfter) !== undefined
      ? { retryAfter: r.error.retryAfter ?? r.retryAfter }
      : {}),
  };
}
