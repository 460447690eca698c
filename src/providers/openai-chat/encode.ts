import type { Conversation, NeutralReply } from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  sseDataSharing,
  type WireResponse,
  type WireStream,
} from '../codec';

function idOf(ctx: EncodeContext, reply: NeutralReply): string {
  return reply.wire?.id ?? `chatcmpl-understudy${String(ctx.callIndex).padStart(6, '0')}`;
}

/** Chat has no paused turn: it ends as a normal stop. */
const finishOf = (reply: NeutralReply) => (reply.finishReason === 'pause_turn' ? 'stop' : reply.finishReason);

/** What identifies the completion in the body and every chunk; a fixture's overrides replace the mock's. */
function identityOf(reply: NeutralReply, ctx: EncodeContext) {
  const w = reply.wire;
  return {
    created: w?.created ?? ctx.created,
    model: reply.model,
    ...(w?.provider !== undefined ? { provider: w.provider } : {}),
    service_tier: w?.serviceTier ?? 'default',
    system_fingerprint: w?.systemFingerprint ?? 'fp_understudy',
  };
}

const nativeFinish = (reply: NeutralReply) =>
  reply.wire?.nativeFinishReason !== undefined ? { native_finish_reason: reply.wire.nativeFinishReason } : {};

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
    ...reply.wire?.usage,
  };
}

function headersOf(ctx: EncodeContext, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'x-request-id': `req_understudy${ctx.callIndex}` };
}

export function encodeChatReply(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireResponse {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: reply.refusal !== undefined ? null : reply.content,
    refusal: reply.refusal ?? null,
    annotations: [],
  };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  const { created, model, service_tier, system_fingerprint, ...provider } = identityOf(reply, ctx);
  const body = {
    id: idOf(ctx, reply),
    object: 'chat.completion',
    created,
    model,
    ...provider,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(reply), ...nativeFinish(reply) }],
    usage: usageOf(reply),
    service_tier,
    system_fingerprint,
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
  const event = sseDataSharing({
    id: idOf(ctx, reply),
    object: 'chat.completion.chunk',
    ...identityOf(reply, ctx),
  });
  const withUsage = conversation.streamUsage;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    event({
      choices: [
        {
          index: 0,
          delta,
          logprobs: null,
          finish_reason: finish,
          ...(finish !== null ? nativeFinish(reply) : {}),
        },
      ],
      ...(withUsage ? { usage: null } : {}),
    });
  const refusal = reply.refusal;
  // A reply that only calls tools opens with `content: null`, as the API streams it (the SDK then
  // reports the message's content as null, not as an empty text).
  const textless = !reply.content && reply.toolCalls.length > 0;
  const events = [
    chunk(
      refusal !== undefined
        ? { role: 'assistant', content: null, refusal: '' }
        : { role: 'assistant', content: textless ? null : '', refusal: null },
    ),
  ];
  if (refusal !== undefined)
    for (const piece of chunkText(refusal, size)) events.push(chunk({ refusal: piece }));
  else if (reply.content)
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
  events.push(chunk({}, finishOf(reply)));
  if (withUsage) events.push(event({ choices: [], usage: usageOf(reply) }));
  events.push('data: [DONE]\n\n');
  return { status: 200, headers: headersOf(ctx, 'text/event-stream; charset=utf-8'), events };
}
