import type { NeutralMessage, NeutralTool, NeutralToolCall } from '../../conversation';
import type { DecodeContext, DecodeResult } from '../codec';
import { validationError } from './errors';

/** `/model/{modelId}/converse` and `/model/{modelId}/converse-stream`; the model id is URL-encoded. */
const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

export function routeOf(path: string): { model: string; stream: boolean } | undefined {
  const m = ROUTE.exec(path);
  if (!m) return undefined;
  let model = m[1];
  try {
    model = decodeURIComponent(model);
  } catch {
    // keep it as sent
  }
  return { model, stream: m[2] === 'converse-stream' };
}

type Block = Record<string, any>;

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(blocks: readonly unknown[]): string | null {
  let text: string | null = null;
  for (const b of blocks) if (isObject(b) && typeof b.text === 'string') text = (text ?? '') + b.text;
  return text;
}

/** A tool result's content blocks as text: text blocks joined, a `json` block as its JSON. */
function resultText(content: unknown): string | null {
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const b of content)
    if (isObject(b)) {
      if (typeof b.text === 'string') parts.push(b.text);
      else if (b.json !== undefined) parts.push(JSON.stringify(b.json));
    }
  return parts.length > 0 ? parts.join('') : null;
}

function userMessagesOf(content: Block[]): NeutralMessage[] {
  const out: NeutralMessage[] = [];
  for (const b of content) {
    if (!isObject(b) || !isObject(b.toolResult)) continue;
    const r = b.toolResult;
    out.push({
      role: 'tool',
      text: resultText(r.content),
      toolCallId: String(r.toolUseId ?? ''),
      ...(r.status === 'error' ? { isError: true } : {}),
    });
  }
  const text = textOf(content);
  if (text !== null || out.length === 0) out.push({ role: 'user', text });
  return out;
}

function assistantMessageOf(content: Block[]): NeutralMessage {
  const toolCalls: NeutralToolCall[] = [];
  const opaque: unknown[] = [];
  let reasoning: string | undefined;
  for (const b of content) {
    if (!isObject(b)) continue;
    if (isObject(b.toolUse)) {
      const u = b.toolUse;
      toolCalls.push({
        id: String(u.toolUseId ?? ''),
        name: String(u.name ?? ''),
        arguments: typeof u.input === 'string' ? u.input : JSON.stringify(u.input ?? {}),
      });
    } else if (isObject(b.reasoningContent)) {
      const text = b.reasoningContent.reasoningText?.text;
      if (typeof text === 'string') reasoning = (reasoning ?? '') + text;
      opaque.push(b);
    }
  }
  return {
    role: 'assistant',
    text: textOf(content),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(opaque.length > 0 ? { opaque } : {}),
  };
}

function toolsOf(config: unknown): NeutralTool[] {
  const tools: NeutralTool[] = [];
  const list = isObject(config) && Array.isArray(config.tools) ? config.tools : [];
  for (const t of list) {
    const spec = isObject(t) ? t.toolSpec : undefined;
    if (!isObject(spec) || typeof spec.name !== 'string') continue; // cachePoint, systemTool…
    tools.push({
      name: spec.name,
      ...(typeof spec.description === 'string' ? { description: spec.description } : {}),
      ...(isObject(spec.inputSchema) && spec.inputSchema.json !== undefined
        ? { parameters: spec.inputSchema.json }
        : {}),
    });
  }
  return tools;
}

/** Converse / ConverseStream request bodies (the model and streaming come from the path). */
export function decodeConverse(body: unknown, ctx: DecodeContext): DecodeResult {
  const route = routeOf(ctx.path);
  if (!route) return { ok: false, error: validationError(`unknown operation ${ctx.path}`) };
  if (!isObject(body))
    return { ok: false, error: validationError('The request body must be a JSON object.') };
  if (!Array.isArray(body.messages))
    return {
      ok: false,
      error: validationError(
        "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null",
      ),
    };
  const messages: NeutralMessage[] = [];
  if (Array.isArray(body.system))
    for (const s of body.system)
      if (isObject(s) && typeof s.text === 'string') messages.push({ role: 'system', text: s.text });
  for (let i = 0; i < body.messages.length; i++) {
    const m = body.messages[i];
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return {
        ok: false,
        error: validationError(
          `1 validation error detected: Value at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`,
        ),
      };
    const content: Block[] = Array.isArray(m.content) ? m.content : [];
    if (m.role === 'user') messages.push(...userMessagesOf(content));
    else messages.push(assistantMessageOf(content));
  }
  return {
    ok: true,
    conversation: {
      provider: 'bedrock',
      protocol: 'bedrock.converse',
      model: route.model,
      messages,
      tools: toolsOf(body.toolConfig),
      stream: route.stream,
      // ConverseStream always ends with a metadata event carrying usage.
      streamUsage: true,
    },
  };
}
