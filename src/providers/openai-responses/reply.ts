/** Responses API responses read back into neutral replies, for recording. */
import type {
  Conversation,
  ConversationStore,
  FinishReason,
  NeutralMessage,
  NeutralReply,
  NeutralToolCall,
  ReplyStep,
  WireOverrides,
} from '../../conversation';
import { orderOf } from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { decodeOpenAIError } from '../openai-chat/reply';
import { isWholeJson } from '../partial-json';
import { isObject, jsonOf, num, parseSse, usage, withWire } from '../sse';
import { echoOf } from './echo';

function finishOf(response: Record<string, any>, hasCalls: boolean): FinishReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    return reason === 'content_filter' ? 'content_filter' : 'length';
  }
  return hasCalls ? 'tool_calls' : 'stop';
}

function usageOf(u: unknown): NeutralReply['usage'] {
  const x = isObject(u) ? u : {};
  return usage(
    num(x.input_tokens),
    num(x.output_tokens),
    typeof x.total_tokens === 'number' ? x.total_tokens : undefined,
    num(x.input_tokens_details?.cached_tokens),
    num(x.output_tokens_details?.reasoning_tokens),
  );
}

function textOf(parts: unknown): string | null {
  if (!Array.isArray(parts)) return null;
  let text: string | null = null;
  for (const p of parts)
    if (isObject(p) && p.type === 'output_text' && typeof p.text === 'string') text = (text ?? '') + p.text;
  return text;
}

/**
 * A finished response object: message text, reasoning summaries and function calls from
 * `output`; the calls among `unfinished` (a cut stream's items) are incomplete.
 */
function replyOfResponse(response: Record<string, any>, unfinished?: WeakSet<object>): ReplyDecodeResult {
  if (response.status === 'failed' || isObject(response.error)) {
    const e = isObject(response.error) ? response.error : {};
    return {
      ok: false,
      error: {
        status: 500,
        type: 'server_error',
        message: typeof e.message === 'string' ? e.message : 'the response failed',
        ...(typeof e.code === 'string' ? { code: e.code } : {}),
      },
    };
  }
  let content: string | null = null;
  const reasoning: string[] = [];
  let encrypted: string | undefined;
  const items: NonNullable<WireOverrides['items']> = {};
  const toolCalls: NeutralToolCall[] = [];
  const pieces: ReplyStep[] = [];
  for (const item of Array.isArray(response.output) ? response.output : []) {
    if (!isObject(item)) continue;
    if (item.type === 'message') {
      const text = textOf(item.content);
      if (text !== null) pieces.push({ text });
      if (text !== null) content = (content ?? '') + text;
      else if (content === null) content = '';
      if (typeof item.id === 'string') items.message ??= item.id;
    } else if (item.type === 'reasoning') {
      for (const s of Array.isArray(item.summary) ? item.summary : [])
        if (isObject(s) && typeof s.text === 'string' && s.text) reasoning.push(s.text);
      if (typeof item.id === 'string') items.reasoning ??= item.id;
      if (typeof item.encrypted_content === 'string') encrypted ??= item.encrypted_content;
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const args = item.type === 'function_call' ? item.arguments : item.input;
      pieces.push({ call: toolCalls.length });
      toolCalls.push({
        id: String(item.call_id ?? ''),
        name: String(item.name ?? ''),
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
        ...(typeof item.id === 'string' ? { itemId: item.id } : {}),
        ...(unfinished?.has(item) && { incomplete: true as const }),
      });
    }
  }
  const wire: WireOverrides = {};
  if (typeof response.id === 'string') wire.id = response.id;
  if (typeof response.created_at === 'number') wire.created = response.created_at;
  if (typeof response.completed_at === 'number') wire.completedAt = response.completed_at;
  if (typeof response.service_tier === 'string') wire.serviceTier = response.service_tier;
  if (Object.keys(items).length > 0) wire.items = items;
  const order = orderOf(pieces);
  return {
    ok: true,
    complete: true,
    raw: response,
    reply: {
      content,
      // A reasoning item whose summary was not asked for still comes back, encrypted.
      ...(reasoning.length > 0 || encrypted !== undefined ? { reasoning: reasoning.join('\n\n') } : {}),
      ...(reasoning.length > 1 ? { reasoningParts: reasoning } : {}),
      ...(encrypted !== undefined ? { reasoningSignature: encrypted } : {}),
      toolCalls,
      finishReason: finishOf(response, toolCalls.length > 0),
      usage: usageOf(response.usage),
      model: String(response.model ?? ''),
      ...withWire(wire),
      ...(order && { order }),
    },
  };
}

export function decodeResponsesReply(body: unknown): ReplyDecodeResult {
  if (!isObject(body) || body.object !== 'response')
    return { ok: false, error: decodeOpenAIError(500, body) };
  return replyOfResponse(body);
}

/**
 * The terminal event (`response.completed`, `.incomplete` or `.failed`) carries the whole
 * response, so it is read like a plain reply. Without one the stream was cut: the items are
 * rebuilt from what arrived (`output_item.added`, the deltas, `output_item.done`) and returned
 * as an incomplete reply.
 */
export function decodeResponsesStream(text: string): ReplyDecodeResult {
  const cut = new CutItems();
  let last: Record<string, any> | undefined;
  for (const e of parseSse(text)) {
    const payload = jsonOf(e.data);
    if (!isObject(payload)) continue;
    const type = payload.type ?? e.event;
    if (type === 'error') {
      return {
        ok: false,
        error: {
          status: 500,
          type: 'server_error',
          message: String(payload.message ?? payload.error?.message ?? 'stream error'),
          ...(typeof (payload.code ?? payload.error?.code) === 'string'
            ? { code: payload.code ?? payload.error.code }
            : {}),
        },
      };
    }
    if (isObject(payload.response)) last = payload.response;
    if (
      (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') &&
      isObject(payload.response)
    )
      return replyOfResponse(payload.response);
    cut.add(type, payload);
  }
  const partial = replyOfResponse(
    { ...(last ?? {}), status: 'in_progress', output: cut.output() },
    cut.unfinished,
  );
  return partial.ok ? { ...partial, complete: false } : partial;
}

/** The output items of a stream cut before its terminal event, as far as each one arrived. */
class CutItems {
  private readonly items: Array<Record<string, any>> = [];
  private readonly done: boolean[] = [];
  /** Text that arrived per item: a message's output text, a reasoning summary, a call's arguments. */
  private readonly text: string[] = [];
  readonly unfinished = new WeakSet<object>();

  add(type: unknown, payload: Record<string, any>): void {
    const at = payload.output_index;
    if (typeof at !== 'number') return;
    if (type === 'response.output_item.added' && isObject(payload.item)) {
      this.items[at] = { ...payload.item };
      this.text[at] = '';
    } else if (type === 'response.output_item.done' && isObject(payload.item)) {
      this.items[at] = payload.item;
      this.done[at] = true;
    } else if (
      typeof payload.delta === 'string' &&
      (type === 'response.output_text.delta' ||
        type === 'response.reasoning_summary_text.delta' ||
        type === 'response.function_call_arguments.delta' ||
        type === 'response.custom_tool_call_input.delta')
    )
      this.text[at] = (this.text[at] ?? '') + payload.delta;
  }

  output(): unknown[] {
    const out: unknown[] = [];
    this.items.forEach((item, at) => {
      if (!item) return;
      if (this.done[at]) {
        out.push(item);
        return;
      }
      const text = this.text[at] ?? '';
      let partial: Record<string, any> = item;
      if (item.type === 'message') partial = { ...item, content: [{ type: 'output_text', text }] };
      else if (item.type === 'reasoning') partial = { ...item, summary: [{ type: 'summary_text', text }] };
      else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
        partial = item.type === 'function_call' ? { ...item, arguments: text } : { ...item, input: text };
        // Free-form input (a custom tool) has no end of its own to tell.
        if (item.type === 'custom_tool_call' || !isWholeJson(text)) this.unfinished.add(partial);
      }
      out.push(partial);
    });
    return out;
  }
}

/**
 * Keeps a recorded response's thread under the provider's response id (for
 * `previous_response_id`) and each output item under its item id (for `item_reference`),
 * as the encoder does for the replies it makes up; `store: false` keeps nothing.
 */
export function rememberResponse(raw: unknown, conversation: Conversation, store: ConversationStore): void {
  if (!isObject(raw) || typeof raw.id !== 'string') return;
  const echo = echoOf(conversation);
  if (!echo.store) return;
  const message: NeutralMessage = { role: 'assistant', text: null };
  for (const item of Array.isArray(raw.output) ? raw.output : []) {
    if (!isObject(item)) continue;
    const piece: NeutralMessage = { role: 'assistant', text: null };
    if (item.type === 'message') piece.text = textOf(item.content) ?? '';
    else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const args = item.type === 'function_call' ? item.arguments : item.input;
      piece.toolCalls = [
        {
          id: String(item.call_id ?? ''),
          name: String(item.name ?? ''),
          arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
        },
      ];
    } else if (item.type === 'reasoning') {
      const texts = (Array.isArray(item.summary) ? item.summary : [])
        .filter((s: unknown) => isObject(s) && typeof s.text === 'string' && s.text)
        .map((s: { text: string }) => s.text);
      if (texts.length > 0) piece.reasoning = texts.join('\n\n');
      piece.opaque = [item];
    } else continue;
    if (typeof item.id === 'string') store.set(item.id, [piece]);
    if (piece.text !== null) message.text = (message.text ?? '') + piece.text;
    if (piece.toolCalls) message.toolCalls = [...(message.toolCalls ?? []), ...piece.toolCalls];
    if (piece.reasoning)
      message.reasoning = message.reasoning ? `${message.reasoning}\n\n${piece.reasoning}` : piece.reasoning;
    if (piece.opaque) message.opaque = [...(message.opaque ?? []), ...piece.opaque];
  }
  store.set(raw.id, [...conversation.messages.slice(echo.instructionMessages), message]);
}

export const responsesReplyDecoder: ReplyDecoder = {
  decodeReply: decodeResponsesReply,
  decodeStream: decodeResponsesStream,
  decodeError: decodeOpenAIError,
  remember: rememberResponse,
};
