/** Chat Completions responses read back into neutral replies, for recording. */
import type {
  FinishReason,
  NeutralError,
  NeutralReply,
  NeutralToolCall,
  WireOverrides,
} from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { isWholeJson } from '../partial-json';
import {
  argumentsText,
  finishOr,
  isObject,
  jsonOf,
  num,
  parseSse,
  unknownError,
  usage,
  withWire,
} from '../sse';

function finishOf(value: unknown, hasCalls: boolean): FinishReason {
  if (value === 'function_call') return 'tool_calls';
  return finishOr(value, hasCalls ? 'tool_calls' : 'stop');
}

function usageOf(u: unknown): NeutralReply['usage'] {
  const x = isObject(u) ? u : {};
  return usage(
    num(x.prompt_tokens),
    num(x.completion_tokens),
    typeof x.total_tokens === 'number' ? x.total_tokens : undefined,
    num(x.prompt_tokens_details?.cached_tokens),
    num(x.completion_tokens_details?.reasoning_tokens),
  );
}

/** OpenAI's envelope `{ error: { message, type, param, code } }`, also used by the Responses API. */
export function decodeOpenAIError(status: number, body: unknown, retryAfter?: number): NeutralError {
  const e = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!e || typeof e.message !== 'string') return unknownError(status, body, retryAfter);
  return {
    status,
    type: typeof e.type === 'string' ? e.type : 'api_error',
    message: e.message,
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.param === 'string' ? { param: e.param } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

/** What identifies the completion on the wire, kept so a replay sends it back. */
function wireOf(body: Record<string, any>): WireOverrides | undefined {
  const wire: WireOverrides = {};
  if (typeof body.id === 'string') wire.id = body.id;
  if (typeof body.created === 'number') wire.created = body.created;
  if (typeof body.system_fingerprint === 'string') wire.systemFingerprint = body.system_fingerprint;
  if (typeof body.service_tier === 'string') wire.serviceTier = body.service_tier;
  return Object.keys(wire).length > 0 ? wire : undefined;
}

export function decodeChatReply(body: unknown): ReplyDecodeResult {
  if (!isObject(body) || !Array.isArray(body.choices))
    return { ok: false, error: decodeOpenAIError(500, body) };
  const message = isObject(body.choices[0]?.message) ? body.choices[0].message : {};
  const toolCalls: NeutralToolCall[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const c of message.tool_calls)
      toolCalls.push({
        id: String(c?.id ?? ''),
        name: String(c?.function?.name ?? ''),
        arguments: argumentsText(c?.function?.arguments),
      });
  } else if (isObject(message.function_call)) {
    const f = message.function_call;
    toolCalls.push({ id: '', name: String(f.name ?? ''), arguments: argumentsText(f.arguments) });
  }
  return {
    ok: true,
    complete: true,
    reply: {
      content: typeof message.content === 'string' ? message.content : null,
      toolCalls,
      finishReason: finishOf(body.choices[0]?.finish_reason, toolCalls.length > 0),
      usage: usageOf(body.usage),
      model: String(body.model ?? ''),
      ...withWire(wireOf(body)),
    },
  };
}

/** Content deltas joined, tool call deltas assembled by index, the finish reason and the usage chunk. */
export function decodeChatStream(text: string): ReplyDecodeResult {
  let content: string | null = null;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  let finish: unknown;
  let usageRaw: unknown;
  let model = '';
  let done = false;
  let identity: Record<string, any> = {};
  for (const e of parseSse(text)) {
    if (e.data.trim() === '[DONE]') {
      done = true;
      continue;
    }
    const chunk = jsonOf(e.data);
    if (!isObject(chunk)) continue;
    if (isObject(chunk.error)) return { ok: false, error: decodeOpenAIError(500, chunk) };
    if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
    identity = { ...identity, ...chunk };
    if (isObject(chunk.usage)) usageRaw = chunk.usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isObject(choice)) continue;
    const delta = isObject(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && (delta.content !== '' || content !== null))
      content = (content ?? '') + delta.content;
    if (Array.isArray(delta.tool_calls)) {
      for (const d of delta.tool_calls) {
        const index = typeof d?.index === 'number' ? d.index : calls.length;
        calls[index] ??= { id: '', name: '', arguments: '' };
        const call = calls[index];
        if (typeof d.id === 'string' && d.id) call.id = d.id;
        if (typeof d.function?.name === 'string') call.name += d.function.name;
        if (typeof d.function?.arguments === 'string') call.arguments += d.function.arguments;
      }
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason;
  }
  const complete = done || finish !== undefined;
  // Chat closes no call but by finishing the choice (parallel calls may stream side by side):
  // on a cut stream, a call whose arguments are not whole JSON never got the rest of them.
  const toolCalls: NeutralToolCall[] = calls
    .filter(Boolean)
    .map((c) => (complete || isWholeJson(c.arguments) ? c : { ...c, incomplete: true }));
  return {
    ok: true,
    complete,
    reply: {
      // The opening delta carries `content: ""`: a reply with neither text nor calls is empty text.
      content: content ?? (toolCalls.length === 0 ? '' : null),
      toolCalls,
      finishReason: finishOf(finish, toolCalls.length > 0),
      usage: usageOf(usageRaw),
      model,
      ...withWire(wireOf(identity)),
    },
  };
}

export const chatReplyDecoder: ReplyDecoder = {
  decodeReply: decodeChatReply,
  decodeStream: decodeChatStream,
  decodeError: decodeOpenAIError,
};
