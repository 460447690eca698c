/** Bedrock Converse responses read back into neutral replies, for recording. */
import {
  type FinishReason,
  type NeutralError,
  type NeutralReply,
  type NeutralToolCall,
  orderOf,
  type ReplyStep,
} from '../../conversation';
import type { ReplyDecodeResult, ReplyDecoder } from '../codec';
import { isWholeJson } from '../partial-json';
import { argumentsText, finishIn, isObject, num, unknownError, usage } from '../sse';
import { decodeEvent, decodeMessages } from './event-stream';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
};

const finishOf = (stop: unknown, hasCalls: boolean) => finishIn(FINISH, stop, hasCalls);

/** The neutral input count includes the tokens read from and written to the prompt cache. */
function usageOf(u: unknown): NeutralReply['usage'] {
  const x = isObject(u) ? u : {};
  const cached = num(x.cacheReadInputTokens);
  const written = num(x.cacheWriteInputTokens);
  const input = num(x.inputTokens) + cached + written;
  return usage(
    input,
    num(x.outputTokens),
    typeof x.totalTokens === 'number' ? x.totalTokens : undefined,
    cached,
    0,
    written,
  );
}

/** The latency the provider reported, kept so a replay reports it too. */
function wireOf(metrics: unknown) {
  const latencyMs = isObject(metrics) ? metrics.latencyMs : undefined;
  return typeof latencyMs === 'number' ? { wire: { latencyMs } } : {};
}

/** `{ message }` with the exception in `x-amzn-errortype` (not seen here) or `__type`. */
export function decodeBedrockError(status: number, body: unknown, retryAfter?: number): NeutralError {
  const message = isObject(body) ? (body.message ?? body.Message) : undefined;
  if (typeof message !== 'string') return unknownError(status, body, retryAfter);
  const type = isObject(body) && typeof body.__type === 'string' ? body.__type.split('#').pop() : undefined;
  return {
    status,
    type: type ?? 'api_error',
    message,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

function replyOfBlocks(
  blocks: unknown[],
  stop: unknown,
  rawUsage: unknown,
  model: string,
  metrics: unknown,
): NeutralReply {
  let content: string | null = null;
  let reasoning: string | undefined;
  let signature: string | undefined;
  const toolCalls: NeutralToolCall[] = [];
  const pieces: ReplyStep[] = [];
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (typeof b.text === 'string') {
      content = (content ?? '') + b.text;
      pieces.push({ text: b.text });
    } else if (isObject(b.reasoningContent) && typeof b.reasoningContent.reasoningText?.text === 'string') {
      reasoning = (reasoning ?? '') + b.reasoningContent.reasoningText.text;
      const signed = b.reasoningContent.reasoningText.signature;
      if (typeof signed === 'string' && signed !== '') signature ??= signed;
    } else if (isObject(b.toolUse)) {
      pieces.push({ call: toolCalls.length });
      toolCalls.push({
        id: String(b.toolUse.toolUseId ?? ''),
        name: String(b.toolUse.name ?? ''),
        arguments: argumentsText(b.toolUse.input),
        ...(b.incomplete === true && { incomplete: true as const }),
      });
    }
  }
  const order = orderOf(pieces);
  return {
    content,
    ...(reasoning || signature !== undefined ? { reasoning: reasoning ?? '' } : {}),
    ...(signature !== undefined ? { reasoningSignature: signature } : {}),
    toolCalls,
    finishReason: finishOf(stop, toolCalls.length > 0),
    usage: usageOf(rawUsage),
    model,
    ...wireOf(metrics),
    ...(order && { order }),
  };
}

export function decodeConverseReply(body: unknown): ReplyDecodeResult {
  const content = isObject(body) ? body.output?.message?.content : undefined;
  if (!isObject(body) || !Array.isArray(content)) return { ok: false, error: decodeBedrockError(500, body) };
  return {
    ok: true,
    complete: true,
    reply: replyOfBlocks(content, body.stopReason, body.usage, '', body.metrics),
  };
}

/**
 * An event stream read back: text and reasoning deltas and `toolUse` input fragments per block
 * index, `messageStop`'s stop reason, `metadata`'s usage. An exception message is the error.
 * The stream arrives as a `latin1` string (one character per byte), see `binaryStream`.
 */
export function decodeConverseStream(text: string): ReplyDecodeResult {
  const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
  let decoded: ReturnType<typeof decodeMessages>;
  try {
    decoded = decodeMessages(bytes);
  } catch (error) {
    return {
      ok: false,
      error: { status: 500, type: 'api_error', message: String((error as Error).message) },
    };
  }
  const blocks: Array<Record<string, any>> = [];
  let stop: unknown;
  let usageRaw: unknown;
  let metrics: unknown;
  let complete = false;
  const stopped: boolean[] = [];
  for (const message of decoded.messages) {
    const event = decodeEvent(message);
    const p = event.payload;
    if (event.messageType === 'exception')
      return {
        ok: false,
        error: { status: 500, type: event.type, message: String(isObject(p) ? p.message : p) },
      };
    if (!isObject(p)) continue;
    const at = p.contentBlockIndex as number;
    if (event.type === 'contentBlockStart' && isObject(p.start?.toolUse))
      blocks[at] = { toolUse: { ...p.start.toolUse, input: '' } };
    else if (event.type === 'contentBlockDelta' && isObject(p.delta)) {
      const d = p.delta;
      if (typeof d.text === 'string') blocks[at] = { text: (blocks[at]?.text ?? '') + d.text };
      else if (isObject(d.toolUse) && blocks[at]?.toolUse)
        blocks[at].toolUse.input += String(d.toolUse.input ?? '');
      else if (isObject(d.reasoningContent)) {
        blocks[at] ??= { reasoningContent: { reasoningText: { text: '' } } };
        const reasoningText = blocks[at].reasoningContent?.reasoningText;
        if (!reasoningText) continue;
        if (typeof d.reasoningContent.text === 'string') reasoningText.text += d.reasoningContent.text;
        if (typeof d.reasoningContent.signature === 'string')
          reasoningText.signature = d.reasoningContent.signature;
      }
    } else if (event.type === 'contentBlockStop') stopped[at] = true;
    else if (event.type === 'messageStop') stop = p.stopReason;
    else if (event.type === 'metadata') {
      usageRaw = p.usage;
      metrics = p.metrics;
      complete = true;
    }
  }
  blocks.forEach((b, at) => {
    if (!b?.toolUse || typeof b.toolUse.input !== 'string') return;
    // A cut stream: the input fragments that arrived, incomplete unless they are whole JSON.
    if (!stopped[at]) {
      if (!isWholeJson(b.toolUse.input)) b.incomplete = true;
    } else if (b.toolUse.input === '') b.toolUse.input = '{}';
  });
  return { ok: true, complete, reply: replyOfBlocks(blocks.filter(Boolean), stop, usageRaw, '', metrics) };
}

export const converseReplyDecoder: ReplyDecoder = {
  decodeReply: decodeConverseReply,
  decodeStream: decodeConverseStream,
  decodeError: decodeBedrockError,
  binaryStream: 'application/vnd.amazon.eventstream',
  idHeader: 'x-amzn-requestid',
};
