import {
  type Conversation,
  type FinishReason,
  type NeutralReply,
  showsReasoning,
  stepsOf,
} from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  type WireResponse,
  type WireStream,
} from '../codec';
import { argumentsObject } from '../partial-json';
import { anthropicSignature } from '../tokens';
import { requestIdOf } from './errors';
import { type BedrockEvent, corruptEvent, encodeEvent } from './event-stream';

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'content_filtered',
  pause_turn: 'end_turn',
};

/** A refusal ends as filtered content: Bedrock has no refusal text field. */
function stopReasonOf(reply: NeutralReply): string {
  return reply.refusal !== undefined ? 'content_filtered' : STOP_REASON[reply.finishReason];
}

function usageOf(reply: NeutralReply) {
  const { inputTokens, outputTokens, totalTokens, cachedInputTokens } = reply.usage;
  const written = reply.usage.cacheWriteInputTokens ?? 0;
  return {
    inputTokens: Math.max(0, inputTokens - cachedInputTokens - written),
    outputTokens,
    totalTokens,
    ...(cachedInputTokens > 0 || written > 0
      ? { cacheReadInputTokens: cachedInputTokens, cacheWriteInputTokens: written }
      : {}),
  };
}

function headersOf(ctx: EncodeContext, contentType: string, reply: NeutralReply): Record<string, string> {
  return {
    'content-type': contentType,
    'x-amzn-requestid': reply.wire?.id ?? requestIdOf(`bedrock|${ctx.callIndex}`),
  };
}

const signatureOf = (reply: NeutralReply, ctx: EncodeContext) =>
  reply.reasoningSignature ?? anthropicSignature(ctx.callIndex, reply.reasoning ?? '');

/** The assistant message's blocks: reasoning, text, then one `toolUse` per call (or text and calls in their order). */
function contentOf(reply: NeutralReply, ctx: EncodeContext): unknown[] {
  const content: unknown[] = [];
  if (showsReasoning(reply))
    content.push({
      reasoningContent: {
        reasoningText: { text: reply.reasoning ?? '', signature: signatureOf(reply, ctx) },
      },
    });
  for (const step of stepsOf(reply)) {
    if (!('call' in step)) {
      content.push({ text: step.text });
      continue;
    }
    const call = reply.toolCalls[step.call];
    content.push({
      toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) },
    });
  }
  if (content.length === 0 && reply.refusal === undefined) content.push({ text: '' });
  return content;
}

/** The latency the response reports: none passes on the mock, unless the fixture recorded one. */
const metricsOf = (reply: NeutralReply) => ({ latencyMs: reply.wire?.latencyMs ?? 0 });

export function encodeConverseReply(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireResponse {
  const body = {
    metrics: metricsOf(reply),
    output: { message: { content: contentOf(reply, ctx), role: 'assistant' } },
    stopReason: stopReasonOf(reply),
    usage: usageOf(reply),
  };
  return {
    status: 200,
    headers: headersOf(ctx, 'application/json', reply),
    body: JSON.stringify(body),
  };
}

/**
 * Bedrock pads each stream event with a `p` field of letters so a message's length does not
 * give away its text; the length varies, here with the event's place in the stream.
 */
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const padded = (payload: Record<string, unknown>, i: number) => ({
  ...payload,
  p: PADDING.slice(0, 1 + ((i * 7) % PADDING.length)),
});

/**
 * The ConverseStream events, each framed as an event-stream message: `messageStart`, per block
 * its deltas (`reasoningContent` text then signature, `text`, a `toolUse` block's
 * `contentBlockStart` then its `input` fragments) and `contentBlockStop`, then `messageStop`
 * and `metadata` with the usage. Text and reasoning blocks have no `contentBlockStart`, as on
 * the real stream.
 */
export function encodeConverseStream(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireStream {
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const events: Array<Omit<BedrockEvent, 'messageType'>> = [
    { type: 'messageStart', payload: { role: 'assistant' } },
  ];
  let index = 0;
  const delta = (contentBlockIndex: number, d: unknown) => ({
    type: 'contentBlockDelta',
    payload: { contentBlockIndex, delta: d },
  });
  const stop = (contentBlockIndex: number) => ({ type: 'contentBlockStop', payload: { contentBlockIndex } });
  if (showsReasoning(reply)) {
    for (const text of chunkText(reply.reasoning ?? '', size))
      events.push(delta(index, { reasoningContent: { text } }));
    events.push(delta(index, { reasoningContent: { signature: signatureOf(reply, ctx) } }));
    events.push(stop(index++));
  }
  for (const step of stepsOf(reply)) {
    if (!('call' in step)) {
      for (const text of chunkText(step.text, size)) events.push(delta(index, { text }));
      events.push(stop(index++));
      continue;
    }
    const call = reply.toolCalls[step.call];
    events.push({
      type: 'contentBlockStart',
      payload: { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } },
    });
    for (const input of chunkText(call.arguments, size)) events.push(delta(index, { toolUse: { input } }));
    events.push(stop(index++));
  }
  events.push({ type: 'messageStop', payload: { stopReason: stopReasonOf(reply) } });
  events.push({ type: 'metadata', payload: { usage: usageOf(reply), metrics: metricsOf(reply) } });
  return {
    status: 200,
    headers: headersOf(ctx, 'application/vnd.amazon.eventstream', reply),
    events: events.map((e, i) =>
      encodeEvent({ messageType: 'event', type: e.type, payload: padded(e.payload, i) }),
    ),
    corrupt: corruptEvent,
  };
}
