import type { Conversation, NeutralReply } from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  sseData,
  type WireResponse,
  type WireStream,
} from '../codec';

function idOf(ctx: EncodeContext): string {
  return `chatcmpl-understudy${String(ctx.callIndex).padStart(6, '0')}`;
}

function usageOf(reply: NeutralReply) {
  return {
    prompt_tokens: reply.usage.inputTokens,
    completion_tokens: reply.usage.outputTokens,
    total_tokens: reply.usage.totalTokens,
    prompt_tokens_details: { cached_tokens: reply.usage.cachedInputTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reply.usage.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function headersOf(ctx: EncodeContext, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'x-request-id': `req_understudy${ctx.callIndex}` };
}

export function encodeChatReply(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireResponse {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.content,
    refusal: null,
    annotations: [],
  };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const body = {
    id: idOf(ctx),
    object: 'chat.completion',
    created: ctx.created,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: usageOf(reply),
    service_tier: 'default',
    system_fingerprint: 'fp_understudy',
  };
  return { status: 200, headers: headersOf(ctx, 'application/json'), body: JSON.stringify(body) };
}

/**
 * The chunk sequence the API sends: a role delta, content deltas, then per tool call a
 * header delta (index, id, name, empty arguments) and argument fragments, a finish delta,
 * and with `stream_options.include_usage` a usage chunk with empty choices, then [DONE].
 */
export function encodeChatStream(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireStream {
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const base = {
    id: idOf(ctx),
    object: 'chat.completion.chunk',
    created: ctx.created,
    model: reply.model,
    service_tier: 'default',
    system_fingerprint: 'fp_understudy',
  };
  const withUsage = conversation.streamUsage;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseData({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(withUsage ? { usage: null } : {}),
    });
  const events = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (reply.content)
    for (const piece of chunkText(reply.content, size)) events.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of chunkText(call.arguments, size)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(chunk({}, reply.finishReason));
  if (withUsage) events.push(sseData({ ...base, choices: [], usage: usageOf(reply) }));
  events.push('data: [DONE]\n\n');
  return { status: 200, headers: headersOf(ctx, 'text/event-stream; charset=utf-8'), events };
}
