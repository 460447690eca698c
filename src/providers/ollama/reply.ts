/** Ollama's native responses read back into neutral replies: for recording, and for what a cut stream delivered. */
import type { FinishReason, NeutralError, NeutralReply, NeutralToolCall } from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { argumentsText, isObject, jsonOf, num, unknownError, usage } from '../sse';

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length' };

export function decodeOllamaError(status: number, body: unknown, retryAfter?: number): NeutralError {
  if (!isObject(body) || typeof body.error !== 'string') return unknownError(status, body, retryAfter);
  return {
    status,
    type: status === 404 ? 'not_found_error' : status === 429 ? 'rate_limit_exceeded' : 'api_error',
    message: body.error,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

/** The reply the lines so far add up to (a plain response is one line). */
class Reassembly {
  content: string | null = null;
  thinking = '';
  calls: NeutralToolCall[] = [];
  model = '';
  last: Record<string, any> | undefined;

  add(obj: Record<string, any>): void {
    if (typeof obj.model === 'string' && obj.model) this.model = obj.model;
    const message = isObject(obj.message) ? obj.message : undefined;
    const text = message ? message.content : obj.response;
    if (typeof text === 'string' && (text !== '' || this.content !== null))
      this.content = (this.content ?? '') + text;
    const thinking = message ? message.thinking : obj.thinking;
    if (typeof thinking === 'string') this.thinking += thinking;
    if (message && Array.isArray(message.tool_calls))
      for (const c of message.tool_calls) {
        const id = typeof c?.id === 'string' && c.id !== '' ? c.id : undefined;
        this.calls.push({
          id: id ?? '',
          name: String(c?.function?.name ?? ''),
          arguments: argumentsText(c?.function?.arguments),
          ...(id === undefined ? { anonymous: true as const } : {}),
        });
      }
    if (obj.done === true) this.last = obj;
  }

  reply(): NeutralReply {
    const last = this.last ?? {};
    const hasCalls = this.calls.length > 0;
    const reason = typeof last.done_reason === 'string' ? FINISH[last.done_reason] : undefined;
    return {
      content: this.content ?? (hasCalls ? null : ''),
      ...(this.thinking ? { reasoning: this.thinking } : {}),
      toolCalls: this.calls,
      finishReason: reason === 'length' ? 'length' : hasCalls ? 'tool_calls' : 'stop',
      usage: usage(num(last.prompt_eval_count), num(last.eval_count), undefined, 0, 0),
      model: this.model,
    };
  }
}

export function decodeOllamaReply(body: unknown): ReplyDecodeResult {
  if (!isObject(body)) return { ok: false, error: unknownError(500, body) };
  if (typeof body.error === 'string') return { ok: false, error: decodeOllamaError(500, body) };
  const r = new Reassembly();
  r.add(body);
  return { ok: true, complete: true, reply: r.reply() };
}

/** The NDJSON lines of a stream; an `{"error"}` line is the failure Ollama reports mid-stream. */
export function decodeOllamaStream(text: string): ReplyDecodeResult {
  const r = new Reassembly();
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const obj = jsonOf(raw);
    if (!isObject(obj)) continue;
    if (typeof obj.error === 'string') return { ok: false, error: decodeOllamaError(500, obj) };
    r.add(obj);
  }
  return { ok: true, complete: r.last !== undefined, reply: r.reply() };
}

export const ollamaReplyDecoder: ReplyDecoder = {
  decodeReply: decodeOllamaReply,
  decodeStream: decodeOllamaStream,
  lineStream: 'application/x-ndjson',
  decodeError: decodeOllamaError,
};
