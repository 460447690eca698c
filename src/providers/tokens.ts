/**
 * Opaque reasoning tokens the mock model issues the way the real APIs do (Anthropic thinking
 * signatures, Gemini thought signatures, Responses `encrypted_content`), and the record of
 * what each was issued for, so the request that hands one back can be checked. Tokens are
 * deterministic (a replay sends the same bytes) and look like the real ones: clients that
 * treat them as base64 keep working.
 */
import { createHash } from 'node:crypto';
import type { ConversationStore } from '../conversation';

export type TokenKind = 'anthropic.signature' | 'gemini.thought' | 'responses.encrypted';

function digest(...parts: Array<string | number>): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

/** An Anthropic `signature`: protobuf-framed bytes in base64, as the API's start with `Eq…`/`Er…`. */
export function anthropicSignature(callIndex: number, thinking: string): string {
  const body = Buffer.concat([digest('anthropic', callIndex, thinking), digest('anthropic-2', thinking)]);
  return Buffer.concat([Buffer.from([0x12, 0x4a, 0x0a, 0x48]), body, digest(callIndex)]).toString('base64');
}

/** A Gemini `thoughtSignature` (base64, starting `Ci…` as the API's do). */
export function geminiThoughtSignature(callIndex: number, firstCallId: string): string {
  return Buffer.concat([Buffer.from([0x0a, 0x24]), digest('gemini', callIndex, firstCallId)]).toString(
    'base64',
  );
}

/** A Responses `encrypted_content` (a Fernet-style `gAAAAA…` token). */
export function responsesEncryptedContent(itemId: string, text: string): string {
  // Version byte 0x80 and a fixed timestamp, then the "ciphertext".
  const head = Buffer.from([0x80, 0, 0, 0, 0, 0x69, 0x55, 0xb5, 0x80]);
  return Buffer.concat([head, digest('responses', itemId, text), digest('responses-2', text)]).toString(
    'base64url',
  );
}

const key = (kind: TokenKind, token: string) => `reasoning-token:${kind}:${token}`;

/** Notes that `token` was issued for `payload` (the thinking text, the call id…), for this file. */
export function issueToken(store: ConversationStore, kind: TokenKind, token: string, payload: string): void {
  store.set(key(kind, token), [{ role: 'assistant', text: payload }]);
}

/** What `token` was issued for, or undefined when this file never issued it. */
export function issuedFor(store: ConversationStore, kind: TokenKind, token: string): string | undefined {
  return store.get(key(kind, token))?.[0]?.text ?? undefined;
}

const toolKey = (toolUseId: string) => `reasoning-token:anthropic.tool-thinking:${toolUseId}`;

/** Anthropic: the reply that issued `toolUseId` began with thinking signed `signature`. */
export function noteThinkingBeforeTool(store: ConversationStore, toolUseId: string, signature: string): void {
  store.set(toolKey(toolUseId), [{ role: 'assistant', text: signature }]);
}

/** The signature of the thinking that preceded `toolUseId` in the reply that issued it. */
export function thinkingBeforeTool(store: ConversationStore, toolUseId: string): string | undefined {
  return store.get(toolKey(toolUseId))?.[0]?.text ?? undefined;
}
