/**
 * Ollama's native replies: one JSON object (`"stream": false`), or NDJSON, one object a line:
 * text (and thinking) pieces with `done: false`, the tool calls whole in one line, then the last
 * line with `done: true`, `done_reason` and the eval counts.
 */
import { type Conversation, type FinishReason, matchKeysOf, type NeutralReply } from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  type WireResponse,
  type WireStream,
} from '../codec';
import { argsObject, rememberCall } from '../gemini/ids';
import { CALL_SPACE } from './decode';

const NDJSON = 'application/x-ndjson';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Ollama says `stop` for a turn that calls tools too; it has no filter or paused turn. */
const DONE_REASON: Record<FinishReason, string> = {
  stop: 'stop',
  tool_calls: 'stop',
  length: 'length',
  content_filter: 'stop',
  pause_turn: 'stop',
};

const createdAt = (ctx: EncodeContext) => new Date(ctx.created * 1000).toISOString();

/** The counts of the last line; durations (nanoseconds) are made from them, so replays are stable. */
function metricsOf(reply: NeutralReply) {
  const { inputTokens, outputTokens } = reply.usage;
  const load = 1_000_000;
  const prompt = inputTokens * 100_000;
  const evalDuration = outputTokens * 1_000_000;
  return {
    total_duration: load + prompt + evalDuration,
    load_duration: load,
    prompt_eval_count: inputTokens,
    prompt_eval_duration: prompt,
    eval_count: outputTokens,
    eval_duration: evalDuration,
  };
}

/** Ollama has no refusal field: a refusal is the text the model said. */
const textOf = (reply: NeutralReply) => reply.refusal ?? reply.content ?? '';

function toolCallsOf(reply: NeutralReply) {
  return reply.toolCalls.map((c, index) => ({
    // A call the provider sent without an id (a recording of an Ollama that sends none) goes out without one.
    ...(c.anonymous ? {} : { id: c.id }),
    function: { index, name: c.name, arguments: argsObject(c.arguments) },
  }));
}

/** Clients send calls back with ids of their own making, or none: each call's id is kept under its place. */
function remember(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext): void {
  if (reply.toolCalls.length === 0) return;
  const keys = matchKeysOf(conversation);
  reply.toolCalls.forEach((call, i) => {
    rememberCall(ctx.store, keys.turnIndex, keys.userMessage, i, call, CALL_SPACE);
  });
}

function messageOf(reply: NeutralReply, text: string): Record<string, unknown> {
  return {
    role: 'assistant',
    content: text,
    ...(reply.reasoning ? { thinking: reply.reasoning } : {}),
    ...(reply.toolCalls.length > 0 ? { tool_calls: toolCallsOf(reply) } : {}),
  };
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/** A malformed line: cut-off JSON, still one line (clients read NDJSON a line at a time, and skip it). */
const corrupt = () => '{"malformed":\n';

export function encodeChatReply(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireResponse {
  remember(reply, conversation, ctx);
  const body = {
    model: reply.model,
    created_at: createdAt(ctx),
    message: messageOf(reply, textOf(reply)),
    done_reason: DONE_REASON[reply.finishReason],
    done: true,
    ...metricsOf(reply),
  };
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body) };
}

export function encodeChatStream(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireStream {
  remember(reply, conversation, ctx);
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const head = { model: reply.model, created_at: createdAt(ctx) };
  const events: string[] = [];
  const piece = (message: Record<string, unknown>) =>
    events.push(line({ ...head, message: { role: 'assistant', content: '', ...message }, done: false }));
  if (reply.reasoning) for (const p of chunkText(reply.reasoning, size)) piece({ thinking: p });
  for (const p of chunkText(textOf(reply), size)) piece({ content: p });
  if (reply.toolCalls.length > 0) piece({ tool_calls: toolCallsOf(reply) });
  events.push(
    line({
      ...head,
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: DONE_REASON[reply.finishReason],
      ...metricsOf(reply),
    }),
  );
  return { status: 200, headers: { 'content-type': NDJSON }, events, corrupt, readsPastCorrupt: true };
}

export function encodeGenerateReply(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireResponse {
  const body = {
    model: reply.model,
    created_at: createdAt(ctx),
    response: textOf(reply),
    ...(reply.reasoning ? { thinking: reply.reasoning } : {}),
    done: true,
    done_reason: DONE_REASON[reply.finishReason],
    ...metricsOf(reply),
  };
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body) };
}

export function encodeGenerateStream(reply: NeutralReply, _c: Conversation, ctx: EncodeContext): WireStream {
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const head = { model: reply.model, created_at: createdAt(ctx) };
  const events: string[] = [];
  if (reply.reasoning)
    for (const p of chunkText(reply.reasoning, size))
      events.push(line({ ...head, response: '', thinking: p, done: false }));
  for (const p of chunkText(textOf(reply), size)) events.push(line({ ...head, response: p, done: false }));
  events.push(
    line({
      ...head,
      response: '',
      done: true,
      done_reason: DONE_REASON[reply.finishReason],
      ...metricsOf(reply),
    }),
  );
  return { status: 200, headers: { 'content-type': NDJSON }, events, corrupt, readsPastCorrupt: true };
}
