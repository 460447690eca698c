/** Anthropic Messages responses read back into neutral replies, for recording. */
import type {
  FinishReason,
  NeutralError,
  NeutralReply,
  NeutralToolCall,
  ReplyStep,
  WireOverrides,
} from '../../conversation';
import { orderOf } from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { isWholeJson } from '../partial-json';
import {
  argumentsText,
  finishIn,
  isObject,
  jsonOf,
  num,
  parseSse,
  unknownError,
  usage,
  withWire,
} from '../sse';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

const finishOf = (stop: unknown, hasCalls: boolean) => finishIn(FINISH, stop, hasCalls);

/** The neutral input count includes the tokens read from and written to the prompt cache. */
function usageOf(u: unknown): NeutralReply['usage'] {
  const x = isObject(u) ? u : {};
  const cached = num(x.cache_read_input_tokens);
  const written = num(x.cache_creation_input_tokens);
  const input = num(x.input_tokens) + cached + written;
  return usage(
    input,
    num(x.output_tokens),
    undefined,
    cached,
    num(x.output_tokens_details?.thinking_tokens),
    written,
  );
}

/** The message id and the tier that served it, kept so a replay sends them back. */
function wireOf(id: unknown, rawUsage: unknown): WireOverrides | undefined {
  const wire: WireOverrides = {};
  if (typeof id === 'string') wire.id = id;
  const tier = isObject(rawUsage) ? rawUsage.service_tier : undefined;
  if (typeof tier === 'string') wire.serviceTier = tier;
  return wire;
}

/** `{ type: 'error', error: { type, message, details? } }`. */
export function decodeAnthropicError(status: number, body: unknown, retryAfter?: number): NeutralError {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!e || typeof e.message !== 'string') return unknownError(status, body, retryAfter);
  const code = e.details?.error_code;
  return {
    status,
    type: typeof e.type === 'string' ? e.type : 'api_error',
    message: e.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

function replyOfBlocks(
  blocks: unknown[],
  stop: unknown,
  rawUsage: unknown,
  model: unknown,
  id: unknown,
): NeutralReply {
  let content: string | null = null;
  let reasoning: string | undefined;
  let signature: string | undefined;
  const redacted: string[] = [];
  const toolCalls: NeutralToolCall[] = [];
  const pieces: ReplyStep[] = [];
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') {
      content = (content ?? '') + b.text;
      pieces.push({ text: b.text });
    } else if (b.type === 'thinking' && typeof b.thinking === 'string') {
      reasoning = (reasoning ?? '') + b.thinking;
      if (typeof b.signature === 'string' && b.signature !== '') signature ??= b.signature;
    } else if (b.type === 'redacted_thinking' && typeof b.data === 'string') redacted.push(b.data);
    else if (b.type === 'tool_use') {
      pieces.push({ call: toolCalls.length });
      toolCalls.push({
        id: String(b.id ?? ''),
        name: String(b.name ?? ''),
        arguments: argumentsText(b.input),
        ...(b.incomplete === true && { incomplete: true as const }),
      });
    }
  }
  const order = orderOf(pieces);
  return {
    content,
    // Thinking the API signed comes back with its signature, its text shown or not.
    ...(reasoning || signature !== undefined ? { reasoning: reasoning ?? '' } : {}),
    ...(signature !== undefined ? { reasoningSignature: signature } : {}),
    ...(redacted.length > 0 ? { redactedThinking: redacted } : {}),
    toolCalls,
    finishReason: finishOf(stop, toolCalls.length > 0),
    usage: usageOf(rawUsage),
    model: String(model ?? ''),
    ...withWire(wireOf(id, rawUsage)),
    ...(order && { order }),
  };
}

export function decodeMessagesReply(body: unknown): ReplyDecodeResult {
  if (!isObject(body) || body.type !== 'message' || !Array.isArray(body.content))
    return { ok: false, error: decodeAnthropicError(500, body) };
  return {
    ok: true,
    complete: true,
    reply: replyOfBlocks(body.content, body.stop_reason, body.usage, body.model, body.id),
  };
}

/**
 * `message_start`, then per block `content_block_start` + deltas (`text_delta`,
 * `input_json_delta`, `thinking_delta`), `message_delta` (stop reason, final usage) and
 * `message_stop`. An `error` event is the provider's error.
 */
export function decodeMessagesStream(text: string): ReplyDecodeResult {
  const blocks: Array<Record<string, any>> = [];
  const json: string[] = [];
  const stopped: boolean[] = [];
  let usageRaw: Record<string, unknown> = {};
  let stop: unknown;
  let model: unknown = '';
  let id: unknown;
  let complete = false;
  for (const e of parseSse(text)) {
    const payload = jsonOf(e.data);
    if (!isObject(payload)) continue;
    switch (payload.type ?? e.event) {
      case 'message_start':
        model = payload.message?.model ?? model;
        id = payload.message?.id ?? id;
        if (isObject(payload.message?.usage)) usageRaw = { ...payload.message.usage };
        break;
      case 'content_block_start': {
        const block = isObject(payload.content_block) ? { ...payload.content_block } : {};
        if (block.type === 'text') block.text = '';
        if (block.type === 'thinking') block.thinking = '';
        blocks[payload.index] = block;
        json[payload.index] = '';
        break;
      }
      case 'content_block_delta': {
        const block = blocks[payload.index];
        const d = payload.delta;
        if (!block || !isObject(d)) break;
        if (d.type === 'text_delta') block.text = (block.text ?? '') + String(d.text ?? '');
        else if (d.type === 'thinking_delta')
          block.thinking = (block.thinking ?? '') + String(d.thinking ?? '');
        else if (d.type === 'signature_delta')
          block.signature = (block.signature ?? '') + String(d.signature ?? '');
        else if (d.type === 'input_json_delta') json[payload.index] += String(d.partial_json ?? '');
        break;
      }
      case 'content_block_stop': {
        const block = blocks[payload.index];
        stopped[payload.index] = true;
        const raw = json[payload.index];
        if (block?.type === 'tool_use' && raw !== undefined && raw !== '') {
          const parsed = jsonOf(raw);
          block.input = parsed === undefined ? raw : parsed;
        }
        break;
      }
      case 'message_delta':
        if (isObject(payload.delta)) stop = payload.delta.stop_reason ?? stop;
        if (isObject(payload.usage)) {
          for (const [k, v] of Object.entries(payload.usage))
            if (v !== null && v !== undefined) usageRaw[k] = v;
        }
        break;
      case 'message_stop':
        complete = true;
        break;
      case 'error':
        return { ok: false, error: decodeAnthropicError(500, payload) };
    }
  }
  blocks.forEach((block, at) => {
    if (block?.type === 'tool_use' && !stopped[at]) unfinishedToolUse(block, json[at] ?? '');
  });
  return { ok: true, complete, reply: replyOfBlocks(blocks.filter(Boolean), stop, usageRaw, model, id) };
}

/**
 * A `tool_use` block the stream was cut in: its input is the JSON that arrived (or the input
 * `content_block_start` carried whole), incomplete unless that is whole JSON. An empty start
 * input with nothing after it is no input at all: the deltas that would fill it never came.
 */
function unfinishedToolUse(block: Record<string, any>, raw: string): void {
  const start = block.input;
  const text =
    raw !== '' ? raw : isObject(start) && Object.keys(start).length > 0 ? JSON.stringify(start) : '';
  block.input = text;
  if (!isWholeJson(text)) block.incomplete = true;
}

export const messagesReplyDecoder: ReplyDecoder = {
  decodeReply: decodeMessagesReply,
  decodeStream: decodeMessagesStream,
  decodeError: decodeAnthropicError,
};
