/**
 * A request as a cassette keeps it: model, system prompt, tool names, every message
 * (tool results included) and the sampling settings, with the user's `normalize` hook
 * applied, personal data as placeholders (when asked) and secrets scrubbed. Recording and
 * replay build it the same way, so the two compare field by field, and its hash (with the
 * tool schemas) says in one look whether anything changed.
 */
import type { Conversation, NeutralMessage } from '../conversation';
import type { RecordedMessage, RecordedRequest } from '../fixtures/types';
import { samplingOf } from '../providers/sampling';
import { REDACTED, scrubSecrets } from '../redact';
import type { PiiScanner } from './pii';
import { canonical, hash } from './prompt-hash';

/** Tool call ids the Gemini codec derives for calls that came without one: not stable, not keys. */
export const DERIVED_ID = /^call_gemini_t\d+_\d+$/;

/** How recording and replay alike see a request: the same hooks, in the same order. */
export interface RequestView {
  /** The user's `normalize` hook (timestamps, UUIDs…). */
  normalize?: (text: string) => string;
  /** The PII scanner of this request (numbered over its texts), when PII redaction is on. */
  pii?: PiiScanner;
  /** Values to scrub wherever they appear (the keys in use). */
  secrets?: readonly string[];
}

/** The conversation with every text rewritten (system prompt, messages, tool call arguments, tool results). */
export function mapTexts(conversation: Conversation, f: (text: string) => string): Conversation {
  const messages = conversation.messages.map((m): NeutralMessage => {
    const out: NeutralMessage = { ...m, text: m.text === null ? null : f(m.text) };
    if (m.toolCalls) out.toolCalls = m.toolCalls.map((c) => ({ ...c, arguments: f(c.arguments) }));
    return out;
  });
  return { ...conversation, messages };
}

/** JSON text as data when it parses (readable in a cassette); the text otherwise. */
function parsedOr(text: string): unknown {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : text;
  } catch {
    return text;
  }
}

/** The recorded request of a conversation (already PII-rewritten, when PII redaction is on). */
export function requestOf(
  conversation: Conversation,
  body: unknown,
  view: RequestView = {},
): RecordedRequest {
  const norm = view.normalize ?? ((t: string) => t);
  const system: string[] = [];
  const messages: RecordedMessage[] = [];
  const toolOf = new Map<string, string>();
  for (const m of conversation.messages) {
    if (m.role === 'system') {
      if (m.text) system.push(norm(m.text));
      continue;
    }
    const out: RecordedMessage = { role: m.role };
    if (m.text !== null && (m.text !== '' || m.role === 'tool')) out.text = norm(m.text);
    if (m.toolCalls?.length) {
      out.toolCalls = m.toolCalls.map((c) => {
        if (c.id) toolOf.set(c.id, c.name);
        return {
          name: c.name,
          ...(c.id && !DERIVED_ID.test(c.id) ? { id: c.id } : {}),
          arguments: parsedOr(norm(c.arguments)),
        };
      });
    }
    if (m.role === 'tool') {
      const tool = m.toolCallId ? toolOf.get(m.toolCallId) : undefined;
      if (tool) out.tool = tool;
      if (m.toolCallId && !DERIVED_ID.test(m.toolCallId)) out.toolCallId = m.toolCallId;
      if (m.isError) out.isError = true;
    }
    messages.push(out);
  }
  const sampling = samplingOf(conversation.protocol, body);
  const request: RecordedRequest = {
    model: conversation.model,
    ...(system.length > 0 ? { system: system.join('\n') } : {}),
    tools: conversation.tools.map((t) => t.name),
    messages,
    ...(Object.keys(sampling).length > 0 ? { sampling } : {}),
  };
  return scrubSecrets(request, { values: view.secrets ?? [] }) as RecordedRequest;
}

/** The conversation as replay and recording match it: PII replaced by placeholders when a scanner is given. */
export function piiView(conversation: Conversation, scanner: PiiScanner): Conversation {
  if (!scanner.active) return conversation;
  return mapTexts(conversation, (t) => scanner.replace(t));
}

/** One hash for the whole request: the recorded request and the tool schemas behind its tool names. */
export function requestHashOf(request: RecordedRequest, toolsHash: string): string {
  return hash(`${canonical(request)}:${toolsHash}`);
}

/**
 * Whether a recorded text still describes the live one: equal, or equal where the recording
 * has `[REDACTED]` standing for a secret (which replay does not have: its key is a placeholder).
 */
export function sameText(recorded: string, live: string): boolean {
  if (recorded === live) return true;
  if (!recorded.includes(REDACTED)) return false;
  const parts = recorded.split(REDACTED).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('\\S*')}$`, 's').test(live);
}
