/**
 * The provider-neutral shapes every codec speaks. Matching, runs and matchers
 * only ever see these; wire formats stay inside `providers/`.
 */

export type ProviderId = 'openai' | 'anthropic' | 'gemini' | 'bedrock' | 'ollama';

export interface NeutralToolCall {
  id: string;
  name: string;
  /** JSON text exactly as the model produced it. */
  arguments: string;
  /**
   * Gemini: the provider sent the call without an id. `id` is the one the codec derives for such
   * calls (so the run links the call to its result), and none goes on the wire.
   */
  anonymous?: boolean;
  /** Gemini: the `thoughtSignature` the provider sent on this call's part. */
  signature?: string;
  /** Responses: the id of the call's output item (`fc_…`). */
  itemId?: string;
  /**
   * Read back from a stream cut before the call's arguments ended: `arguments` is the part that
   * arrived. Only a reply as it reached a client carries it (see `ModelCall.cut`).
   */
  incomplete?: true;
}

export interface NeutralMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  /** Joined text parts; null when the message carries no text at all. */
  text: string | null;
  toolCalls?: NeutralToolCall[];
  /** For role 'tool': the call this message answers. */
  toolCallId?: string;
  /** For role 'tool': the provider flagged the result as an error. */
  isError?: boolean;
  /** For role 'assistant': reasoning the model showed (summaries, thinking text), passed through. */
  reasoning?: string;
  /** For role 'assistant': opaque provider items to hand back verbatim (encrypted reasoning…). */
  opaque?: unknown[];
}

export interface NeutralTool {
  name: string;
  description?: string;
  parameters?: unknown;
}

/** A decoded model request. */
export interface Conversation {
  provider: ProviderId;
  /** Which wire protocol, e.g. 'openai.chat'. */
  protocol: string;
  model: string;
  messages: NeutralMessage[];
  tools: NeutralTool[];
  stream: boolean;
  /** Whether a streamed reply should end with a usage chunk. */
  streamUsage: boolean;
  /** The output format the request asks for, by the Chat name (`json_schema`, `json_object`, `text`), if any. */
  responseFormat?: string;
  /** aimock's `X-AIMock-Context` request header, which fixtures with `match.context` route by. */
  context?: string;
}

/** Conversations a stateful protocol chains by id (the Responses API's `previous_response_id`). */
export interface ConversationStore {
  get(id: string): NeutralMessage[] | undefined;
  set(id: string, messages: NeutralMessage[]): void;
}

export interface NeutralUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Of the input tokens, those served from the prompt cache. */
  cachedInputTokens: number;
  /** Of the output tokens, those spent on reasoning. */
  reasoningTokens: number;
  /** Of the input tokens, those written to the prompt cache (Anthropic, Bedrock). */
  cacheWriteInputTokens?: number;
}

/** `pause_turn`: Anthropic paused a long server-tool turn; the client sends the reply back to continue. */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'pause_turn';

/** Values a fixture stamps on the wire reply instead of the ones the mock makes (aimock's overrides). */
export interface WireOverrides {
  /** The response id (`chatcmpl-…`, `resp_…`, `msg_…`, Gemini `responseId`). */
  id?: string;
  /** Unix seconds: Chat `created`, Responses `created_at`. */
  created?: number;
  /** Chat `system_fingerprint`. */
  systemFingerprint?: string;
  /** Chat: OpenRouter's `provider` field. */
  provider?: string;
  /** Chat: OpenRouter's `native_finish_reason` on the choice. */
  nativeFinishReason?: string;
  /** Chat: usage fields sent as given (OpenRouter `cost`, `is_byok`, token details…). */
  usage?: Record<string, unknown>;
  /** The tier that served the reply: Chat and Responses `service_tier`, Anthropic `usage.service_tier`. */
  serviceTier?: string;
  /** Responses: `completed_at` (Unix seconds). */
  completedAt?: number;
  /** Responses: the ids of the reasoning and message output items (`rs_…`, `msg_…`). */
  items?: { reasoning?: string; message?: string };
  /** Bedrock: `metrics.latencyMs`. */
  latencyMs?: number;
}

/** What the mock model answers, before a codec puts it on the wire. */
export interface NeutralReply {
  content: string | null;
  /** Reasoning text to send before the answer, where the protocol has a place for it. */
  reasoning?: string;
  /**
   * Responses: the reasoning summary's parts, when the provider split it in several (`reasoning`
   * is them joined by a blank line).
   */
  reasoningParts?: string[];
  /**
   * The provider's token for the reasoning (a recorded one), sent instead of a made one: the
   * Anthropic and Bedrock thinking signature, the Responses reasoning item's `encrypted_content`,
   * the `thoughtSignature` on a Gemini answer's text.
   */
  reasoningSignature?: string;
  /** Anthropic: `redacted_thinking` blocks (their encrypted `data`) to send before the thinking. */
  redactedThinking?: string[];
  /** Web searches the model ran before answering, by query, where the protocol reports them. */
  webSearches?: string[];
  toolCalls: NeutralToolCall[];
  finishReason: FinishReason;
  usage: NeutralUsage;
  model: string;
  /** The model declined: Chat `message.refusal`, a Responses refusal part, Anthropic `stop_reason: refusal`. */
  refusal?: string;
  /** Wire values the fixture sets (aimock's response overrides). */
  wire?: WireOverrides;
  /**
   * The reply's text and calls in their order, when some text comes after a call (models do
   * that; protocols that keep order send it so). Its texts joined are `content`, its calls are
   * `toolCalls`, each once. Absent: the text first, then the calls.
   */
  order?: ReplyStep[];
}

/** A step of an ordered reply: a piece of its text, or the call at `toolCalls[call]`. */
export type ReplyStep = { text: string } | { call: number };

/**
 * The order of a reply read in pieces (a fixture's blocks, a provider's content blocks), texts
 * side by side joined; undefined when no text follows a call, the order every protocol sends.
 */
export function orderOf(pieces: readonly ReplyStep[]): ReplyStep[] | undefined {
  let called = false;
  let late = false;
  for (const piece of pieces) {
    if ('call' in piece) called = true;
    else if (called && piece.text !== '') late = true;
  }
  if (!late) return undefined;
  const steps: ReplyStep[] = [];
  for (const piece of pieces) {
    const last = steps[steps.length - 1];
    if ('call' in piece) steps.push({ call: piece.call });
    else if (piece.text === '') continue;
    else if (last && 'text' in last) last.text += piece.text;
    else steps.push({ text: piece.text });
  }
  return steps;
}

/** The reply's text and calls in the order they go on the wire (`order`, else the text then the calls). */
export function stepsOf(reply: Pick<NeutralReply, 'content' | 'toolCalls' | 'order'>): ReplyStep[] {
  if (reply.order) return reply.order;
  const steps: ReplyStep[] = reply.content ? [{ text: reply.content }] : [];
  for (let call = 0; call < reply.toolCalls.length; call++) steps.push({ call });
  return steps;
}

/** A provider-shaped failure the mock model answers with. */
export interface NeutralError {
  status: number;
  type: string;
  message: string;
  code?: string;
  /** The request field at fault, where the protocol reports one. */
  param?: string;
  retryAfter?: number;
  /** Extra details in the envelope (OpenRouter's `error.metadata`). */
  metadata?: Record<string, unknown>;
}

/** The facts about a conversation that fixtures match on, computed once per request. */
export interface MatchKeys {
  /** Latest user message that has text (attachment-only trailing messages skipped). */
  userMessage: string | null;
  /** Assistant messages already in the thread. */
  turnIndex: number;
  /** A tool result follows the latest user message. */
  hasToolResult: boolean;
  /** The tool call the request answers (its last message is that tool result). */
  toolCallId: string | null;
  /** Text of the last message when it is a tool result. */
  toolResult: string | null;
  toolNames: string[];
  model: string;
  systemMessage: string;
  /** The output format the request asks for (see `Conversation.responseFormat`). */
  responseFormat?: string;
  /** aimock's fixture routing key: the request's `X-AIMock-Context` header. */
  context?: string;
}

export function matchKeysOf(conversation: Conversation): MatchKeys {
  const { messages } = conversation;
  let lastUser = -1;
  let userMessage: string | null = null;
  let turnIndex = 0;
  const system: string[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user') {
      if (lastUser === -1) lastUser = i;
      if (userMessage === null && m.text !== null) userMessage = m.text;
    } else if (m.role === 'assistant') turnIndex++;
  }
  // An empty system text (`instructions: ""`, `system: ""`) is no system prompt.
  for (const m of messages) if (m.role === 'system' && m.text) system.push(m.text);
  let hasToolResult = false;
  for (let i = lastUser + 1; i < messages.length; i++) {
    if (messages[i].role === 'tool') {
      hasToolResult = true;
      break;
    }
  }
  const last = messages[messages.length - 1];
  const lastIsTool = last !== undefined && last.role === 'tool';
  return {
    userMessage,
    turnIndex,
    hasToolResult,
    toolCallId: lastIsTool ? (last.toolCallId ?? null) : null,
    toolResult: lastIsTool ? last.text : null,
    toolNames: conversation.tools.map((t) => t.name),
    model: conversation.model,
    systemMessage: system.join('\n'),
    ...(conversation.responseFormat !== undefined ? { responseFormat: conversation.responseFormat } : {}),
    ...(conversation.context !== undefined ? { context: conversation.context } : {}),
  };
}

/**
 * Whether the reply shows reasoning: text, or a reasoning block the provider sent with no
 * visible text but its token (Anthropic's omitted thinking, a Responses item without summary).
 */
export function showsReasoning(reply: NeutralReply): boolean {
  return !!reply.reasoning || reply.reasoningSignature !== undefined;
}
