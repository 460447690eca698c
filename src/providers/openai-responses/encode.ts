import {
  type Conversation,
  type NeutralMessage,
  type NeutralReply,
  type NeutralToolCall,
  showsReasoning,
} from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  type WireResponse,
  type WireStream,
} from '../codec';
import { issueToken, responsesEncryptedContent } from '../tokens';
import { echoOf } from './echo';
import { noteResponseItems } from './items';

/** Item and response ids, derived from the call's place in the file. */
interface Ids {
  response: string;
  reasoning: string;
  message: string;
  /** The k-th message item of a reply whose text comes in pieces between its calls. */
  messageAt: (k: number) => string;
  call: (index: number) => string;
  search: (index: number) => string;
}

function idsOf(ctx: EncodeContext, reply: NeutralReply): Ids {
  const n = String(ctx.callIndex).padStart(6, '0');
  const items = reply.wire?.items;
  return {
    response: reply.wire?.id ?? `resp_understudy${n}`,
    reasoning: items?.reasoning ?? `rs_understudy${n}`,
    message: items?.message ?? `msg_understudy${n}`,
    messageAt: (k) => (k === 0 ? (items?.message ?? `msg_understudy${n}`) : `msg_understudy${n}_${k}`),
    call: (i) => reply.toolCalls[i]?.itemId ?? `fc_understudy${n}_${i}`,
    search: (i) => `ws_understudy${n}_${i}`,
  };
}

/** A reasoning item: the reply's reasoning, or a recorded item that showed none (its id and token kept). */
const hasReasoningItem = (reply: NeutralReply) =>
  showsReasoning(reply) || reply.wire?.items?.reasoning !== undefined;

type Status = 'completed' | 'incomplete';

/** `length` and `content_filter` end a response early: status `incomplete` with the reason. */
function statusOf(reply: NeutralReply): { status: Status; incomplete: { reason: string } | null } {
  if (reply.finishReason === 'length')
    return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (reply.finishReason === 'content_filter')
    return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** A message item when the reply has text or a refusal, or when it has nothing else to say. */
function hasMessage(reply: NeutralReply): boolean {
  if (reply.refusal !== undefined) return true;
  return reply.content !== null && (reply.content.length > 0 || reply.toolCalls.length === 0);
}

function usageOf(reply: NeutralReply) {
  const u = reply.usage;
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.totalTokens,
  };
}

const outputText = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
const refusalPart = (refusal: string) => ({ type: 'refusal', refusal });

/** The reasoning summary's parts: as the provider split them (a recorded reply), else one. */
const summaryOf = (reply: NeutralReply): string[] =>
  reply.reasoningParts ?? (reply.reasoning ? [reply.reasoning] : []);

/**
 * A reasoning item; with `encrypted` (the request included `reasoning.encrypted_content`, or the
 * fixture recorded it) it carries the encrypted form a stateless client sends back, noted in the
 * file's store.
 */
function reasoningItem(
  id: string,
  summary: string[],
  encrypted?: { full: string; ctx: EncodeContext; recorded?: string },
) {
  const item: Record<string, unknown> = {
    id,
    type: 'reasoning',
    summary: summary.map((text) => ({ type: 'summary_text', text })),
  };
  if (encrypted) {
    const token = encrypted.recorded ?? responsesEncryptedContent(id, encrypted.full);
    issueToken(encrypted.ctx.store, 'responses.encrypted', token, encrypted.full);
    item.encrypted_content = token;
  }
  return item;
}

function encryptionOf(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext) {
  const full = reply.reasoning ?? '';
  if (reply.reasoningSignature !== undefined) return { full, ctx, recorded: reply.reasoningSignature };
  return echoOf(conversation).encryptedReasoning && reply.reasoning ? { full, ctx } : undefined;
}

const messageItem = (id: string, text: string | null, status: string, refusal?: string) => ({
  id,
  type: 'message',
  status,
  content: refusal !== undefined ? [refusalPart(refusal)] : text === null ? [] : [outputText(text)],
  role: 'assistant',
});

/** A web search the model ran (fixture `webSearches`), as the built-in web_search tool reports it. */
const searchItem = (id: string, query: string, done: boolean) => ({
  id,
  type: 'web_search_call',
  status: done ? 'completed' : 'in_progress',
  action: { type: 'search', query },
});

/** A function call item; a reply cut off by the token limit leaves its calls `incomplete`. */
const callItem = (id: string, call: NeutralToolCall, done: boolean, status: Status = 'completed') => ({
  id,
  type: 'function_call',
  status: done ? status : 'in_progress',
  arguments: done ? call.arguments : '',
  call_id: call.id,
  name: call.name,
});

/** After reasoning and searches: the reply's message items and function calls, in order. */
type Said = { message: string; text: string | null; refusal?: string } | { call: number };

function saidOf(reply: NeutralReply, ids: Ids): Said[] {
  const said: Said[] = [];
  if (reply.order) {
    let k = 0;
    for (const step of reply.order)
      said.push('call' in step ? step : { message: ids.messageAt(k++), text: step.text });
    return said;
  }
  if (hasMessage(reply))
    said.push({
      message: ids.message,
      text: reply.content,
      ...(reply.refusal !== undefined && { refusal: reply.refusal }),
    });
  for (let call = 0; call < reply.toolCalls.length; call++) said.push({ call });
  return said;
}

/** The finished output items, in the order the API sends them. */
function outputOf(
  reply: NeutralReply,
  ids: Ids,
  status: Status,
  encrypted?: { full: string; ctx: EncodeContext },
): unknown[] {
  const output: unknown[] = [];
  if (hasReasoningItem(reply)) output.push(reasoningItem(ids.reasoning, summaryOf(reply), encrypted));
  (reply.webSearches ?? []).forEach((query, i) => {
    output.push(searchItem(ids.search(i), query, true));
  });
  for (const item of saidOf(reply, ids))
    output.push(
      'call' in item
        ? callItem(ids.call(item.call), reply.toolCalls[item.call], true, status)
        : messageItem(item.message, item.text, status, item.refusal),
    );
  return output;
}

/** Built-in tool usage: the mock model runs none. */
const TOOL_USAGE = {
  image_gen: {
    input_tokens: 0,
    input_tokens_details: { image_tokens: 0, text_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { image_tokens: 0, text_tokens: 0 },
    total_tokens: 0,
  },
  web_search: { num_requests: 0 },
};

/** The response object, with the request settings the API echoes back. */
function responseOf(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
  ids: Ids,
  final: boolean,
): Record<string, unknown> {
  const echo = echoOf(conversation);
  const { status, incomplete } = statusOf(reply);
  const tier = echo.serviceTier;
  const done = final && status === 'completed';
  // Field order as the API sends it (2026 captures): identity and status, then the rest.
  return {
    id: ids.response,
    object: 'response',
    created_at: reply.wire?.created ?? ctx.created,
    status: final ? status : 'in_progress',
    background: echo.background,
    completed_at: done ? (reply.wire?.completedAt ?? reply.wire?.created ?? ctx.created) : null,
    error: null,
    frequency_penalty: echo.frequencyPenalty,
    incomplete_details: final ? incomplete : null,
    instructions: echo.instructions,
    max_output_tokens: echo.maxOutputTokens,
    max_tool_calls: echo.maxToolCalls,
    model: reply.model,
    moderation: null,
    output: final ? outputOf(reply, ids, status, encryptionOf(reply, conversation, ctx)) : [],
    parallel_tool_calls: echo.parallelToolCalls,
    presence_penalty: echo.presencePenalty,
    previous_response_id: echo.previousResponseId,
    prompt_cache_key: echo.promptCacheKey,
    prompt_cache_retention: echo.promptCacheRetention,
    reasoning: echo.reasoning,
    safety_identifier: echo.safetyIdentifier,
    // The request's tier while in progress; the tier that served it once done.
    service_tier: final
      ? (reply.wire?.serviceTier ?? (tier && tier !== 'auto' ? tier : 'default'))
      : (tier ?? 'auto'),
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.toolChoice,
    tool_usage: TOOL_USAGE,
    tools: echo.tools,
    top_logprobs: echo.topLogprobs,
    top_p: echo.topP,
    truncation: echo.truncation,
    usage: final ? usageOf(reply) : null,
    user: echo.user,
    metadata: echo.metadata,
  };
}

/**
 * Keeps the thread this reply ends under the response id (for `previous_response_id`) and
 * each output item under its item id (for `item_reference`), unless the request said
 * `store: false`. A chained request does not inherit `instructions`, so they are left out.
 */
function remember(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext, ids: Ids): void {
  const echo = echoOf(conversation);
  if (!echo.store) return;
  const message: NeutralMessage = { role: 'assistant', text: hasMessage(reply) ? reply.content : null };
  if (reply.toolCalls.length > 0) message.toolCalls = reply.toolCalls.map((c) => ({ ...c }));
  if (hasReasoningItem(reply)) {
    if (reply.reasoning) message.reasoning = reply.reasoning;
    message.opaque = [reasoningItem(ids.reasoning, summaryOf(reply))];
    ctx.store.set(ids.reasoning, [
      {
        role: 'assistant',
        text: null,
        ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
        opaque: message.opaque,
      },
    ]);
  }
  const said = saidOf(reply, ids);
  for (const item of said)
    if ('call' in item)
      ctx.store.set(ids.call(item.call), [
        { role: 'assistant', text: null, toolCalls: [{ ...reply.toolCalls[item.call] }] },
      ]);
    else ctx.store.set(item.message, [{ role: 'assistant', text: item.text }]);
  ctx.store.set(ids.response, [...conversation.messages.slice(echo.instructionMessages), message]);
  noteResponseItems(ctx.store, ids.response, echo.previousResponseId, [
    ...(hasReasoningItem(reply) ? [ids.reasoning] : []),
    ...(reply.webSearches ?? []).map((_, i) => ids.search(i)),
    ...said.map((item) => ('call' in item ? ids.call(item.call) : item.message)),
  ]);
}

function headersOf(ctx: EncodeContext, contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'x-request-id': `req_understudy${ctx.callIndex}` };
}

export function encodeResponsesReply(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireResponse {
  const ids = idsOf(ctx, reply);
  const body = responseOf(reply, conversation, ctx, ids, true);
  remember(reply, conversation, ctx, ids);
  return { status: 200, headers: headersOf(ctx, 'application/json'), body: JSON.stringify(body) };
}

/**
 * The typed event sequence the API streams: `response.created`, `response.in_progress`,
 * then per output item `output_item.added`, its deltas and `.done` events and
 * `output_item.done` (a reasoning summary, the message text, each function call's
 * arguments), and `response.completed` (or `response.incomplete`) with the whole response.
 * Every event carries `sequence_number`; there is no `[DONE]` terminator.
 */
export function encodeResponsesStream(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireStream {
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const ids = idsOf(ctx, reply);
  const { status } = statusOf(reply);
  const events: string[] = [];
  let seq = 0;
  // `type` first, then the fields in alphabetical order, `sequence_number` among them, as the API
  // sends them. Written by hand so the response object (the bulk of the bytes) is serialized once
  // per state rather than once per event.
  const emit = (type: string, fields: Record<string, unknown>, rawResponse?: string) => {
    const keys = [...Object.keys(fields), 'sequence_number'];
    if (rawResponse !== undefined) keys.push('response');
    keys.sort();
    let json = `{"type":${JSON.stringify(type)}`;
    for (const key of keys) {
      const value =
        key === 'sequence_number'
          ? String(seq)
          : key === 'response' && rawResponse !== undefined
            ? rawResponse
            : JSON.stringify(fields[key]);
      json += `,"${key}":${value}`;
    }
    seq++;
    events.push(`event: ${type}\ndata: ${json}}\n\n`);
  };
  const inProgress = JSON.stringify(responseOf(reply, conversation, ctx, ids, false));
  emit('response.created', {}, inProgress);
  emit('response.in_progress', {}, inProgress);

  let index = 0;
  if (hasReasoningItem(reply)) {
    const summary = summaryOf(reply);
    const encrypted = encryptionOf(reply, conversation, ctx);
    emit('response.output_item.added', {
      output_index: index,
      item: reasoningItem(ids.reasoning, [], encrypted),
    });
    // Each part of the summary in turn; a reasoning item without one is added and done, nothing between.
    summary.forEach((text, summaryIndex) => {
      const at = { item_id: ids.reasoning, output_index: index, summary_index: summaryIndex };
      emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of chunkText(text, size))
        emit('response.reasoning_summary_text.delta', { ...at, delta });
      emit('response.reasoning_summary_text.done', { ...at, text });
      emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } });
    });
    emit('response.output_item.done', {
      output_index: index,
      item: reasoningItem(ids.reasoning, summary, encrypted),
    });
    index++;
  }
  (reply.webSearches ?? []).forEach((query, i) => {
    const id = ids.search(i);
    const at = { item_id: id, output_index: index };
    emit('response.output_item.added', { output_index: index, item: searchItem(id, query, false) });
    emit('response.web_search_call.in_progress', at);
    emit('response.web_search_call.searching', at);
    emit('response.web_search_call.completed', at);
    emit('response.output_item.done', { output_index: index, item: searchItem(id, query, true) });
    index++;
  });
  for (const item of saidOf(reply, ids)) {
    if ('call' in item) {
      const call = reply.toolCalls[item.call];
      const id = ids.call(item.call);
      const at = { item_id: id, output_index: index };
      emit('response.output_item.added', { output_index: index, item: callItem(id, call, false) });
      for (const delta of chunkText(call.arguments, size))
        emit('response.function_call_arguments.delta', { ...at, delta });
      emit('response.function_call_arguments.done', { ...at, arguments: call.arguments });
      emit('response.output_item.done', { output_index: index, item: callItem(id, call, true, status) });
      index++;
      continue;
    }
    const text = item.text ?? '';
    const { refusal, message: id } = item;
    const at = { item_id: id, output_index: index, content_index: 0 };
    emit('response.output_item.added', {
      output_index: index,
      item: messageItem(id, null, 'in_progress'),
    });
    if (refusal !== undefined) {
      emit('response.content_part.added', { ...at, part: refusalPart('') });
      for (const delta of chunkText(refusal, size)) emit('response.refusal.delta', { ...at, delta });
      emit('response.refusal.done', { ...at, refusal });
      emit('response.content_part.done', { ...at, part: refusalPart(refusal) });
    } else {
      emit('response.content_part.added', { ...at, part: outputText('') });
      for (const delta of chunkText(text, size))
        emit('response.output_text.delta', { ...at, delta, logprobs: [] });
      emit('response.output_text.done', { ...at, text, logprobs: [] });
      emit('response.content_part.done', { ...at, part: outputText(text) });
    }
    emit('response.output_item.done', {
      output_index: index,
      item: messageItem(id, text, status, refusal),
    });
    index++;
  }

  emit(
    status === 'completed' ? 'response.completed' : 'response.incomplete',
    {},
    JSON.stringify(responseOf(reply, conversation, ctx, ids, true)),
  );
  remember(reply, conversation, ctx, ids);
  return { status: 200, headers: headersOf(ctx, 'text/event-stream; charset=utf-8'), events };
}
