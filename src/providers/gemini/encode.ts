import {
  type Conversation,
  type FinishReason,
  matchKeysOf,
  type NeutralReply,
  type NeutralUsage,
} from '../../conversation';
import {
  chunkText,
  DEFAULT_CHUNK_SIZE,
  type EncodeContext,
  type WireResponse,
  type WireStream,
} from '../codec';
import { geminiThoughtSignature, issueToken } from '../tokens';
import { argsObject, rememberCall } from './ids';
import { isGemini3 } from './models';

/** Function calls finish with STOP: Gemini has no "tool calls" finish reason. */
const FINISH_REASON: Record<FinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  pause_turn: 'STOP',
};

type Part = Record<string, unknown>;

function responseIdOf(ctx: EncodeContext, reply: NeutralReply): string {
  return reply.wire?.id ?? `understudy${String(ctx.callIndex).padStart(6, '0')}`;
}

const SAFE = (category: string) => ({ category, probability: 'NEGLIGIBLE' });

/**
 * A refusal is a candidate blocked for safety: no content, `finishReason: SAFETY` and the
 * ratings, one of them blocked, as the API answers a response it will not give.
 */
function refusalChunk(reply: NeutralReply, ctx: EncodeContext): Record<string, unknown> {
  return {
    candidates: [
      {
        finishReason: 'SAFETY',
        index: 0,
        safetyRatings: [
          SAFE('HARM_CATEGORY_SEXUALLY_EXPLICIT'),
          SAFE('HARM_CATEGORY_HATE_SPEECH'),
          SAFE('HARM_CATEGORY_HARASSMENT'),
          { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
        ],
      },
    ],
    usageMetadata: usageMetadataOf(reply.usage),
    modelVersion: reply.model,
    responseId: responseIdOf(ctx, reply),
  };
}

/**
 * `usageMetadata` as the API reports it: `candidatesTokenCount` excludes thoughts,
 * `totalTokenCount` includes them; cached and thought counts appear only when non-zero.
 */
export function usageMetadataOf(usage: NeutralUsage): Record<string, unknown> {
  const m: Record<string, unknown> = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    totalTokenCount: usage.totalTokens,
  };
  if (usage.cachedInputTokens > 0) m.cachedContentTokenCount = usage.cachedInputTokens;
  m.promptTokensDetails = [{ modality: 'TEXT', tokenCount: usage.inputTokens }];
  if (usage.cachedInputTokens > 0)
    m.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: usage.cachedInputTokens }];
  if (usage.reasoningTokens > 0) m.thoughtsTokenCount = usage.reasoningTokens;
  return m;
}

/**
 * The function call parts, in order. Gemini 3 thinks before it calls: the first call of the
 * batch carries the thought signature (noted in the file's store, for the request that
 * hands it back), the others none, as the API sends them.
 */
function callParts(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext): Part[] {
  const parts: Part[] = reply.toolCalls.map((call) => {
    const part: Part = {
      functionCall: call.anonymous
        ? { name: call.name, args: argsObject(call.arguments) }
        : { id: call.id, name: call.name, args: argsObject(call.arguments) },
    };
    // A recorded signature goes back as it came (and is the one the next request must carry).
    if (call.signature !== undefined) {
      issueToken(ctx.store, 'gemini.thought', call.signature, call.id);
      part.thoughtSignature = call.signature;
    }
    return part;
  });
  if (parts.length > 0 && parts[0].thoughtSignature === undefined && isGemini3(conversation.model)) {
    const signature = geminiThoughtSignature(ctx.callIndex, reply.toolCalls[0].id);
    issueToken(ctx.store, 'gemini.thought', signature, reply.toolCalls[0].id);
    parts[0].thoughtSignature = signature;
  }
  return parts;
}

/** Remembers each call's id under its place in the thread, for clients that send calls back without ids. */
function remember(reply: NeutralReply, conversation: Conversation, ctx: EncodeContext): void {
  if (reply.toolCalls.length === 0) return;
  const keys = matchKeysOf(conversation);
  reply.toolCalls.forEach((call, i) => {
    rememberCall(ctx.store, keys.turnIndex, keys.userMessage, i, call);
  });
}

function chunk(
  parts: Part[],
  reply: NeutralReply,
  ctx: EncodeContext,
  last: boolean,
): Record<string, unknown> {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(last ? { finishReason: FINISH_REASON[reply.finishReason] } : {}),
        // Web searches the model ran (fixture `webSearches`), as Google Search grounding reports them.
        ...(last && reply.webSearches?.length
          ? { groundingMetadata: { webSearchQueries: reply.webSearches } }
          : {}),
        index: 0,
      },
    ],
    ...(last ? { usageMetadata: usageMetadataOf(reply.usage) } : {}),
    modelVersion: reply.model,
    responseId: responseIdOf(ctx, reply),
  };
}

export function encodeGeminiReply(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireResponse {
  remember(reply, conversation, ctx);
  if (reply.refusal !== undefined)
    return {
      status: 200,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify(refusalChunk(reply, ctx)),
    };
  const parts: Part[] = [];
  if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
  if (reply.order) {
    const calls = callParts(reply, conversation, ctx);
    for (const step of reply.order) parts.push('call' in step ? calls[step.call] : { text: step.text });
    // A thinking model's answer carries its signature on its last text part.
    const lastText = parts.findLast((p) => typeof p.text === 'string' && !p.thought);
    if (reply.reasoningSignature !== undefined && lastText)
      lastText.thoughtSignature = reply.reasoningSignature;
  } else {
    if (reply.content) parts.push({ text: reply.content });
    if (reply.reasoningSignature !== undefined) {
      // A thinking model's answer carries its signature on its last text part.
      if (parts.length === 0) parts.push({ text: '' });
      parts[parts.length - 1].thoughtSignature = reply.reasoningSignature;
    }
    parts.push(...callParts(reply, conversation, ctx));
  }
  if (parts.length === 0) parts.push({ text: '' });
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(chunk(parts, reply, ctx, true)),
  };
}

/**
 * `streamGenerateContent?alt=sse`: one `data: {GenerateContentResponse}` event per chunk,
 * CRLF-framed as the API sends them. Thought text, then answer text split by chunk size,
 * then each function call whole in its own chunk (a reply in order: text and calls in turn), then the answer's thought signature (a
 * recorded one); the last chunk carries `finishReason` and `usageMetadata`. No terminal
 * sentinel: the stream just ends.
 */
export function encodeGeminiStream(
  reply: NeutralReply,
  conversation: Conversation,
  ctx: EncodeContext,
): WireStream {
  remember(reply, conversation, ctx);
  if (reply.refusal !== undefined)
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      events: [`data: ${JSON.stringify(refusalChunk(reply, ctx))}\r\n\r\n`],
    };
  const size = ctx.shaping.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunks: Part[][] = [];
  if (reply.reasoning)
    for (const t of chunkText(reply.reasoning, size)) chunks.push([{ text: t, thought: true }]);
  const calls = callParts(reply, conversation, ctx);
  if (reply.order)
    for (const step of reply.order) {
      if ('call' in step) chunks.push([calls[step.call]]);
      else for (const t of chunkText(step.text, size)) chunks.push([{ text: t }]);
    }
  else {
    if (reply.content) for (const t of chunkText(reply.content, size)) chunks.push([{ text: t }]);
    for (const part of calls) chunks.push([part]);
  }
  // A streamed answer's signature comes last, on a part of its own with no text.
  if (reply.reasoningSignature !== undefined)
    chunks.push([{ text: '', thoughtSignature: reply.reasoningSignature }]);
  if (chunks.length === 0) chunks.push([{ text: '' }]);
  const events = chunks.map(
    (parts, i) => `data: ${JSON.stringify(chunk(parts, reply, ctx, i === chunks.length - 1))}\r\n\r\n`,
  );
  return { status: 200, headers: { 'content-type': 'text/event-stream' }, events };
}
