import type { NeutralMessage, NeutralTool, NeutralToolCall } from '../../conversation';
import type { DecodeContext, DecodeResult } from '../codec';
import { anthropicError } from './errors';
import { loadThread, markThreaded } from './threads';

type Block = { type?: unknown; [key: string]: unknown };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Joined text of the `text` blocks; null when there are none (images, documents carry no text). */
function textOfBlocks(blocks: readonly unknown[]): string | null {
  let text: string | null = null;
  for (const b of blocks as Block[]) {
    if (isObject(b) && b.type === 'text' && typeof b.text === 'string') text = (text ?? '') + b.text;
  }
  return text;
}

function toolResultText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return textOfBlocks(content);
  return null;
}

function argumentsOf(input: unknown): string {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

/** An assistant turn: text, `tool_use` calls, and thinking / other items kept to pass back verbatim. */
export function assistantMessageOf(content: unknown): NeutralMessage {
  if (typeof content === 'string') return { role: 'assistant', text: content };
  const blocks = Array.isArray(content) ? (content as Block[]) : [];
  const toolCalls: NeutralToolCall[] = [];
  const opaque: unknown[] = [];
  let reasoning: string | undefined;
  for (const b of blocks) {
    if (!isObject(b) || b.type === 'text') continue;
    if (b.type === 'tool_use') {
      toolCalls.push({ id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: argumentsOf(b.input) });
    } else {
      if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning = (reasoning ?? '') + b.thinking;
      // thinking, redacted_thinking, server tool blocks, compaction…: the API wants them back as sent.
      opaque.push(b);
    }
  }
  return {
    role: 'assistant',
    text: textOfBlocks(blocks),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(opaque.length > 0 ? { opaque } : {}),
  };
}

/**
 * A user turn: each `tool_result` block becomes a 'tool' message, in order; the text blocks,
 * if any, follow as one user message. A turn with neither (an image alone) is a user message
 * with no text.
 */
function userMessagesOf(content: unknown): NeutralMessage[] {
  if (typeof content === 'string') return [{ role: 'user', text: content }];
  const blocks = content as Block[];
  const out: NeutralMessage[] = [];
  for (const b of blocks) {
    if (!isObject(b) || b.type !== 'tool_result') continue;
    out.push({
      role: 'tool',
      text: toolResultText(b.content),
      toolCallId: String(b.tool_use_id ?? ''),
      ...(b.is_error === true ? { isError: true } : {}),
    });
  }
  const text = textOfBlocks(blocks);
  if (text !== null || out.length === 0) out.push({ role: 'user', text });
  return out;
}

function toolOf(t: unknown): NeutralTool | undefined {
  // Server tools (web_search, bash, code_execution…) have no input_schema: the agent does not run them.
  if (!isObject(t) || typeof t.name !== 'string' || t.input_schema === undefined) return undefined;
  return {
    name: t.name,
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    parameters: t.input_schema,
  };
}

/** System text blocks become system messages; `tool_addition` / `tool_removal` blocks edit the tools. */
function systemMessagesOf(content: unknown, tools: NeutralTool[]): NeutralMessage[] {
  if (typeof content === 'string') return [{ role: 'system', text: content }];
  if (!Array.isArray(content)) return [];
  const out: NeutralMessage[] = [];
  for (const b of content as Block[]) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') out.push({ role: 'system', text: b.text });
    else if (b.type === 'tool_addition' && isObject(b.tool) && b.tool.type === 'tool_definition') {
      const tool = toolOf(b.tool.definition);
      if (tool) {
        const at = tools.findIndex((t) => t.name === tool.name);
        if (at === -1) tools.push(tool);
        else tools[at] = tool;
      }
    } else if (b.type === 'tool_removal' && isObject(b.tool) && typeof b.tool.name === 'string') {
      const at = tools.findIndex((t) => t.name === (b.tool as { name: string }).name);
      if (at !== -1) tools.splice(at, 1);
    }
  }
  return out;
}

const ROLES = "Input should be 'user', 'assistant' or 'system'";

/** The structured output the request asks for (`output_config.format`, or the beta `output_format`). */
function formatOf(b: Record<string, any>): string | undefined {
  const type = b.output_config?.format?.type ?? b.output_format?.type;
  return typeof type === 'string' ? type : undefined;
}

export function decodeMessages(body: unknown, ctx: DecodeContext): DecodeResult {
  const b = body as Record<string, unknown>;
  if (!isObject(b))
    return { ok: false, error: anthropicError(400, 'body: Input should be a valid dictionary') };
  if (typeof b.model !== 'string') return { ok: false, error: anthropicError(400, 'model: Field required') };
  if (b.max_tokens === undefined)
    return { ok: false, error: anthropicError(400, 'max_tokens: Field required') };
  if (typeof b.max_tokens !== 'number' || !Number.isInteger(b.max_tokens)) {
    return { ok: false, error: anthropicError(400, 'max_tokens: Input should be a valid integer') };
  }
  if (b.messages === undefined) return { ok: false, error: anthropicError(400, 'messages: Field required') };
  if (!Array.isArray(b.messages))
    return { ok: false, error: anthropicError(400, 'messages: Input should be a valid list') };

  const messages: NeutralMessage[] = [];
  let tools: NeutralTool[] = [];
  const thread = isObject(b.thread) ? b.thread : undefined;
  if (thread?.type === 'continue') {
    const id = String(thread.previous_message_id ?? '');
    const stored = loadThread(ctx.store, id);
    if (!stored) {
      return {
        ok: false,
        error: anthropicError(
          404,
          `thread.previous_message_id: no thread holds the message ${JSON.stringify(id)}`,
          'thread_not_found',
        ),
      };
    }
    messages.push(...stored.messages);
    tools = [...stored.tools];
  }
  if (Array.isArray(b.tools)) {
    tools = [];
    for (const t of b.tools) {
      const tool = toolOf(t);
      if (tool) tools.push(tool);
    }
  }
  if (b.system !== undefined) messages.push(...systemMessagesOf(b.system, tools));

  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i];
    if (!isObject(m))
      return { ok: false, error: anthropicError(400, `messages.${i}: Input should be a valid dictionary`) };
    const { role, content } = m;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      return { ok: false, error: anthropicError(400, `messages.${i}.role: ${ROLES}`) };
    }
    if (typeof content !== 'string' && !Array.isArray(content)) {
      return { ok: false, error: anthropicError(400, `messages.${i}.content: Input should be a valid list`) };
    }
    if (role === 'user') messages.push(...userMessagesOf(content));
    else if (role === 'assistant') messages.push(assistantMessageOf(content));
    else messages.push(...systemMessagesOf(content, tools));
  }

  const conversation = {
    provider: 'anthropic' as const,
    protocol: 'anthropic.messages',
    model: b.model,
    messages,
    tools,
    stream: b.stream === true,
    // Anthropic streams always carry usage (message_start and message_delta).
    streamUsage: true,
    ...(formatOf(b) !== undefined ? { responseFormat: formatOf(b) } : {}),
  };
  if (thread?.type === 'create' || thread?.type === 'continue') markThreaded(conversation);
  return { ok: true, conversation };
}
