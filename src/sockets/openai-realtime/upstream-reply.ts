/**
 * A Realtime response as the provider sent it (its server events, `response.created` through
 * `response.done`), read back into the neutral reply recording keeps: the text, or the transcript
 * of the audio; the function calls with their ids; usage; how it finished. Pure: golden samples
 * of the API's events test it.
 */
import type { FinishReason, NeutralError, NeutralReply, NeutralToolCall } from '../../conversation';
import type { ReplyDecodeResult } from '../../providers/codec';

type Obj = Record<string, any>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorOf(error: unknown, status = 400): NeutralError {
  const e = isObject(error) ? error : {};
  const type = typeof e.type === 'string' ? e.type : 'server_error';
  return {
    status: e.code === 'rate_limit_exceeded' || type === 'rate_limit_exceeded' ? 429 : status,
    type,
    message: typeof e.message === 'string' ? e.message : 'the Realtime API failed the response',
    ...(typeof e.code === 'string' && { code: e.code }),
    ...(typeof e.param === 'string' && { param: e.param }),
  };
}

/** The text of a message item: its text parts, or its audio parts' transcripts. */
function textOfItem(item: Obj): string {
  let text = '';
  for (const part of Array.isArray(item.content) ? item.content : [])
    if (part?.type === 'output_text' || part?.type === 'text') text += part.text ?? '';
    else if (part?.type === 'output_audio' || part?.type === 'audio') text += part.transcript ?? '';
  return text;
}

/** The output items a response's deltas built, for a response that never reached `response.done`. */
function itemsOfDeltas(events: readonly Obj[]): Obj[] {
  const items = new Map<string, Obj>();
  for (const e of events) {
    if (e.type === 'response.output_item.added' || e.type === 'response.output_item.done')
      items.set(e.item?.id, { ...e.item, content: [...(e.item?.content ?? [])] });
    const item = items.get(e.item_id);
    if (!item) continue;
    if (
      e.type === 'response.output_text.delta' ||
      e.type === 'response.output_audio_transcript.delta' ||
      e.type === 'response.text.delta' ||
      e.type === 'response.audio_transcript.delta'
    )
      item.content = [{ type: 'output_text', text: textOfItem(item) + (e.delta ?? '') }];
    else if (e.type === 'response.function_call_arguments.delta')
      item.arguments = (item.arguments ?? '') + (e.delta ?? '');
  }
  return [...items.values()];
}

function usageOf(usage: unknown): NeutralReply['usage'] {
  const u = isObject(usage) ? usage : {};
  const inputTokens = Number(u.input_tokens ?? 0);
  const outputTokens = Number(u.output_tokens ?? 0);
  return {
    inputTokens,
    outputTokens,
    totalTokens: Number(u.total_tokens ?? inputTokens + outputTokens),
    cachedInputTokens: Number(u.input_token_details?.cached_tokens ?? 0),
    reasoningTokens: Number(u.output_token_details?.reasoning_tokens ?? 0),
  };
}

/**
 * One response's events (those before its `response.created` included: an `error` there refused
 * it). `complete` is false when the events end before `response.done`, or the response was
 * cancelled: less than a whole reply came.
 */
export function realtimeReplyOf(events: readonly Obj[], model: string): ReplyDecodeResult {
  const done = events.find((e) => e.type === 'response.done');
  const response: Obj | undefined = isObject(done?.response) ? done.response : undefined;
  if (!response) {
    const refused = events.find((e) => e.type === 'error');
    if (refused && !events.some((e) => e.type === 'response.created'))
      return { ok: false, error: errorOf(refused.error) };
  }
  if (response?.status === 'failed') {
    const error = response.status_details?.error ?? events.find((e) => e.type === 'error')?.error;
    return { ok: false, error: errorOf(error, 500) };
  }
  const output: Obj[] =
    response && Array.isArray(response.output) && response.output.length > 0
      ? response.output
      : itemsOfDeltas(events);
  let content = '';
  const toolCalls: NeutralToolCall[] = [];
  for (const item of output) {
    if (item.type === 'message' && item.role !== 'user') content += textOfItem(item);
    else if (item.type === 'function_call')
      toolCalls.push({
        id: String(item.call_id ?? ''),
        name: String(item.name ?? ''),
        arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
      });
  }
  const reason = response?.status_details?.reason;
  const finishReason: FinishReason =
    response?.status === 'incomplete'
      ? reason === 'content_filter'
        ? 'content_filter'
        : 'length'
      : toolCalls.length > 0
        ? 'tool_calls'
        : 'stop';
  const reply: NeutralReply = {
    content: content === '' && toolCalls.length > 0 ? null : content,
    toolCalls,
    finishReason,
    usage: usageOf(response?.usage),
    model,
  };
  const complete = response !== undefined && response.status !== 'cancelled';
  return { ok: true, reply, complete };
}
