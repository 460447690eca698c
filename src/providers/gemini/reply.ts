/** Gemini generateContent responses read back into neutral replies, for recording. */
import {
  type FinishReason,
  type NeutralError,
  type NeutralReply,
  type NeutralToolCall,
  orderOf,
  type ReplyStep,
} from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { isObject, jsonOf, num, parseSse, unknownError, usage } from '../sse';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

function finishOf(reason: unknown, hasCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content_filter';
  return hasCalls ? 'tool_calls' : 'stop';
}

/** `candidatesTokenCount` leaves out thoughts; the neutral output count includes them. */
function usageOf(u: unknown): NeutralReply['usage'] {
  const x = isObject(u) ? u : {};
  const thoughts = num(x.thoughtsTokenCount);
  return usage(
    num(x.promptTokenCount),
    num(x.candidatesTokenCount) + thoughts,
    typeof x.totalTokenCount === 'number' ? x.totalTokenCount : undefined,
    num(x.cachedContentTokenCount),
    thoughts,
  );
}

/** `{ error: { code, message, status } }`: the Google status name is the type. */
export function decodeGeminiError(status: number, body: unknown, retryAfter?: number): NeutralError {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!e || typeof e.message !== 'string') return unknownError(status, body, retryAfter);
  return {
    status,
    type: typeof e.status === 'string' ? e.status : 'UNKNOWN',
    message: e.message,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

/** Parts of one or more response chunks, accumulated. */
class Parts {
  content: string | null = null;
  reasoning: string | undefined;
  /** The `thoughtSignature` of a part that is not a call (a thinking model's answer carries one). */
  signature: string | undefined;
  readonly toolCalls: NeutralToolCall[] = [];
  /** The answer's text and calls in the order they came. */
  private readonly pieces: ReplyStep[] = [];
  finish: unknown;
  usage: unknown;
  model = '';
  responseId: string | undefined;

  add(chunk: Record<string, any>): void {
    const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    if (typeof chunk.modelVersion === 'string') this.model = chunk.modelVersion;
    if (typeof chunk.responseId === 'string') this.responseId = chunk.responseId;
    if (isObject(chunk.usageMetadata)) this.usage = chunk.usageMetadata;
    if (!isObject(candidate)) return;
    if (candidate.finishReason !== undefined) this.finish = candidate.finishReason;
    const parts = Array.isArray(candidate.content?.parts) ? candidate.content.parts : [];
    for (const p of parts) {
      if (!isObject(p)) continue;
      const call = p.functionCall ?? p.function_call;
      if (isObject(call)) {
        const signature = p.thoughtSignature ?? p.thought_signature;
        this.pieces.push({ call: this.toolCalls.length });
        this.toolCalls.push({
          // A call without an id gets the one the codec derives, once its place in the thread is known.
          id: typeof call.id === 'string' ? call.id : '',
          name: String(call.name ?? ''),
          arguments: JSON.stringify(call.args ?? {}),
          ...(typeof call.id === 'string' && call.id !== '' ? {} : { anonymous: true }),
          ...(typeof signature === 'string' ? { signature } : {}),
        });
      } else if (typeof p.text === 'string') {
        const signature = p.thoughtSignature ?? p.thought_signature;
        if (typeof signature === 'string') this.signature ??= signature;
        if (p.thought === true) this.reasoning = (this.reasoning ?? '') + p.text;
        else if (p.text !== '' || this.content !== null) {
          this.content = (this.content ?? '') + p.text;
          this.pieces.push({ text: p.text });
        }
      }
    }
  }

  reply(): NeutralReply {
    const order = orderOf(this.pieces);
    return {
      content: this.content ?? (this.toolCalls.length === 0 ? '' : null),
      ...(this.reasoning || this.signature !== undefined ? { reasoning: this.reasoning ?? '' } : {}),
      ...(this.signature !== undefined ? { reasoningSignature: this.signature } : {}),
      toolCalls: this.toolCalls,
      finishReason: finishOf(this.finish, this.toolCalls.length > 0),
      usage: usageOf(this.usage),
      model: this.model,
      ...(this.responseId !== undefined ? { wire: { id: this.responseId } } : {}),
      ...(order && { order }),
    };
  }
}

export function decodeGeminiReply(body: unknown): ReplyDecodeResult {
  if (!isObject(body) || isObject(body.error) || !Array.isArray(body.candidates))
    return { ok: false, error: decodeGeminiError(500, body) };
  const parts = new Parts();
  parts.add(body);
  return { ok: true, complete: true, reply: parts.reply() };
}

/** `data: {GenerateContentResponse}` chunks: their parts concatenate; the last one has `finishReason`. */
export function decodeGeminiStream(text: string): ReplyDecodeResult {
  const parts = new Parts();
  for (const e of parseSse(text)) {
    const chunk = jsonOf(e.data);
    if (!isObject(chunk)) continue;
    if (isObject(chunk.error))
      return { ok: false, error: decodeGeminiError(num(chunk.error.code) || 500, chunk) };
    parts.add(chunk);
  }
  return { ok: true, complete: parts.finish !== undefined, reply: parts.reply() };
}

export const geminiReplyDecoder: ReplyDecoder = {
  decodeReply: decodeGeminiReply,
  decodeStream: decodeGeminiStream,
  decodeError: decodeGeminiError,
};
