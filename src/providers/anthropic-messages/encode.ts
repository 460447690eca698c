import {
  type Conversation,
  type FinishReason,
  type NeutralReply,
  type NeutralToolCall,
  showsReasoning,
  stepsOf,
} from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  sseEvent,
  type WireResponse,
  type WireStream,
} from '../codec';
import { argumentsObject } from '../partial-json';
import { anthropicSignature, issueToken, noteThinkingBeforeTool } from '../tokens';
import { assistantMessageOf } from './decode';
import { isThreaded, saveThread } from './threads';

const pad = (n: number) => String(n).padStart(6, '0');

export function messageIdOf(ctx: EncodeContext, reply?: NeutralReply): string {
  return reply?.wire?.id ?? `msg_understudy${pad(ctx.callIndex)}`;
}

function headersOf(ctx: EncodeContext, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'request-id': `req_understudy${pad(ctx.callIndex)}` };
}

const STOP_REASON: Record<FinishReason, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
  pause_turn: 'pause_turn',
};

/** A refusal stops with `refusal`, its text as the explanation in `stop_details`. */
function stopOf(reply: NeutralReply) {
  if (reply.refusal === undefined)
    return { stop_reason: STOP_REASON[reply.finishReason], stop_sequence: null };
  return {
    stop_reason: 'refusal',
    stop_sequence: null,
    stop_details: { type: 'refusal', category: null, explanation: reply.refusal },
  };
}

/**
 * Anthropic's `input_tokens` leaves out the tokens read from (or written to) the prompt cache,
 * which it counts separately; the neutral `inputTokens` include them.
 */
function usageOf(reply: NeutralReply) {
  const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens } = reply.usage;
  const written = reply.usage.cacheWriteInputTokens ?? 0;
  return {
    input_tokens: Math.max(0, inputTokens - cachedInputTokens - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cachedInputTokens,
    output_tokens: outputTokens,
    ...(reasoningTokens > 0 ? { output_tokens_details: { thinking_tokens: reasoningTokens } } : {}),
    ...(reply.webSearches?.length
      ? { server_tool_use: { web_search_requests: reply.webSearches.length } }
      : {}),
  };
}

/** The cache writes by lifetime: the default five-minute cache holds them. */
const cacheCreationOf = (reply: NeutralReply) => ({
  ephemeral_5m_input_tokens: reply.usage.cacheWriteInputTokens ?? 0,
  ephemeral_1h_input_tokens: 0,
});

/**
 * The blocks of the final message: redacted thinking, thinking, text, then one `tool_use` per
 * call (text after a call, for a reply in order, goes in its place among them). The thinking signature (the fixture's, or one made for it) is noted in the file's
 * store, with the calls it preceded, so the request that hands it back can be checked.
 */
function contentOf(reply: NeutralReply, ctx: EncodeContext): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = [];
  for (const data of reply.redactedThinking ?? []) content.push({ type: 'redacted_thinking', data });
  if (showsReasoning(reply)) {
    const thinking = reply.reasoning ?? '';
    const signature = reply.reasoningSignature ?? anthropicSignature(ctx.callIndex, thinking);
    issueToken(ctx.store, 'anthropic.signature', signature, thinking);
    for (const call of reply.toolCalls) noteThinkingBeforeTool(ctx.store, call.id, signature);
    content.push({ type: 'thinking', thinking, signature });
  }
  // Web searches the model ran (fixture `webSearches`): the server tool's call and its result.
  (reply.webSearches ?? []).forEach((query, i) => {
    const id = `srvtoolu_understudy${pad(ctx.callIndex)}_${i}`;
    content.push({ type: 'server_tool_use', id, name: 'web_search', input: { query } });
    content.push({ type: 'web_search_tool_result', tool_use_id: id, content: [] });
  });
  if (reply.order) {
    for (const step of reply.order)
      content.push(
        'call' in step ? toolUseOf(reply.toolCalls[step.call]) : { type: 'text', text: step.text },
      );
    return content;
  }
  const text = reply.content ?? '';
  // An empty answer still has its (empty) text block, as the API sends it; a refusal may have none.
  if (text !== '' || (reply.toolCalls.length === 0 && reply.refusal === undefined))
    content.push({ type: 'text', text });
  for (const call of reply.toolCalls) content.push(toolUseOf(call));
  return content;
}

function toolUseOf(call: NeutralToolCall): Record<string, unknown> {
  return {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    // An object on the wire: arguments cut off by the token limit, as far as their whole values go.
    input: argumentsObject(call.arguments),
    caller: { type: 'direct' },
  };
}

/** A request that asked for a thread is kept under the reply's id, reply included. */
function keepThread(
  conversation: Conversation,
  content: unknown[],
  ctx: EncodeContext,
  reply: NeutralReply,
): void {
  if (!isThreaded(conversation)) return;
  saveThread(ctx.store, messageIdOf(ctx, reply), {
    messages: [...conversation.messages, assistantMessageOf(content)],
    tools: conversation.tools,
  });
}

export function encodeMessagesReply(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireResponse {
  const content = contentOf(reply, ctx);
  keepThread(conversation, content, ctx, reply);
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, ...rest } = usageOf(reply);
  const body = {
    id: messageIdOf(ctx, reply),
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content,
    ...stopOf(reply),
    usage: {
      input_tokens,
      cache_creation_input_tokens,
      cache_read_input_tokens,
      cache_creation: cacheCreationOf(reply),
      ...rest,
      service_tier: reply.wire?.serviceTier ?? 'standard',
    },
  };
  return { status: 200, headers: headersOf(ctx, 'application/json'), body: JSON.stringify(body) };
}

/**
 * The event sequence the API sends: `message_start` (empty content, input usage), then per
 * block `content_block_start`, its deltas (`thinking_delta` + `signature_delta`, `text_delta`,
 * `input_json_delta` starting with an empty fragment) and `content_block_stop`, a `ping` after
 * the first block opens, then `message_delta` (stop_reason, final usage) and `message_stop`.
 */
export function encodeMessagesStream(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireStream {
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const content = contentOf(reply, ctx);
  keepThread(conversation, content, ctx, reply);
  const usage = usageOf(reply);
  const events = [
    sseEvent('message_start', {
      type: 'message_start',
      message: {
        id: messageIdOf(ctx, reply),
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens,
          cache_read_input_tokens: usage.cache_read_input_tokens,
          cache_creation: cacheCreationOf(reply),
          output_tokens: Math.min(1, usage.output_tokens),
          service_tier: reply.wire?.serviceTier ?? 'standard',
        },
      },
    }),
  ];
  // tool_use blocks come in the order of the reply's steps.
  const calls = stepsOf(reply).flatMap((step) => ('call' in step ? [reply.toolCalls[step.call]] : []));
  let nextCall = 0;
  const delta = (index: number, d: Record<string, unknown>) =>
    sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: d });
  content.forEach((block, index) => {
    let start: Record<string, unknown>;
    const deltas: string[] = [];
    if (block.type === 'redacted_thinking') {
      start = block;
    } else if (block.type === 'thinking') {
      start = { type: 'thinking', thinking: '', signature: '' };
      for (const piece of chunkText(block.thinking as string, size))
        deltas.push(delta(index, { type: 'thinking_delta', thinking: piece }));
      deltas.push(delta(index, { type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'server_tool_use') {
      start = { ...block, input: {} };
      deltas.push(delta(index, { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }));
    } else if (block.type === 'web_search_tool_result') {
      start = block;
    } else if (block.type === 'text') {
      start = { type: 'text', text: '' };
      for (const piece of chunkText(block.text as string, size))
        deltas.push(delta(index, { type: 'text_delta', text: piece }));
    } else {
      start = { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: block.caller };
      deltas.push(delta(index, { type: 'input_json_delta', partial_json: '' }));
      for (const piece of chunkText(calls[nextCall++].arguments, size))
        deltas.push(delta(index, { type: 'input_json_delta', partial_json: piece }));
    }
    events.push(
      sseEvent('content_block_start', { type: 'content_block_start', index, content_block: start }),
    );
    if (index === 0) events.push(sseEvent('ping', { type: 'ping' }));
    events.push(...deltas);
    events.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: stopOf(reply),
      usage,
    }),
  );
  events.push(sseEvent('message_stop', { type: 'message_stop' }));
  return { status: 200, headers: headersOf(ctx, 'text/event-stream; charset=utf-8'), events };
}
