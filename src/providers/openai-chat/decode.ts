import type { NeutralMessage, NeutralTool, NeutralToolCall } from '../../conversation';
import type { DecodeResult } from '../codec';
import { openaiError } from './errors';

type Part = { type?: string; text?: string };

/** Joined text parts; null when there are none (an image-only message has no text). */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  let text: string | null = null;
  for (const p of content as Part[]) {
    if (p && (p.type === 'text' || p.type === 'input_text') && typeof p.text === 'string')
      text = (text ?? '') + p.text;
  }
  return text;
}

function toolCallsOf(raw: unknown): NeutralToolCall[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw.map((c: any) => ({
    id: String(c?.id ?? ''),
    name: String(c?.function?.name ?? ''),
    arguments:
      typeof c?.function?.arguments === 'string'
        ? c.function.arguments
        : JSON.stringify(c?.function?.arguments ?? {}),
  }));
}

function messageOf(m: any): NeutralMessage | string {
  if (typeof m !== 'object' || m === null) return 'each message must be an object';
  switch (m.role) {
    case 'system':
    case 'developer':
      return { role: 'system', text: textOf(m.content) };
    case 'user':
      return { role: 'user', text: textOf(m.content) };
    case 'assistant': {
      const toolCalls =
        toolCallsOf(m.tool_calls) ??
        (m.function_call
          ? [
              {
                id: '',
                name: String(m.function_call.name),
                arguments: String(m.function_call.arguments ?? ''),
              },
            ]
          : undefined);
      return { role: 'assistant', text: textOf(m.content), ...(toolCalls ? { toolCalls } : {}) };
    }
    case 'tool':
      return { role: 'tool', text: textOf(m.content), toolCallId: String(m.tool_call_id ?? '') };
    case 'function':
      return { role: 'tool', text: textOf(m.content), toolCallId: '' };
    default:
      return `unknown message role ${JSON.stringify(m.role)}`;
  }
}

function toolsOf(body: any): NeutralTool[] {
  const tools: NeutralTool[] = [];
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      const f = t?.function ?? t;
      if (f && typeof f.name === 'string')
        tools.push({ name: f.name, description: f.description, parameters: f.parameters });
    }
  }
  if (Array.isArray(body.functions)) {
    for (const f of body.functions)
      if (typeof f?.name === 'string')
        tools.push({ name: f.name, description: f.description, parameters: f.parameters });
  }
  return tools;
}

export function decodeChat(body: unknown): DecodeResult {
  const b = body as any;
  if (typeof b !== 'object' || b === null)
    return { ok: false, error: openaiError(400, 'the request body must be a JSON object') };
  if (typeof b.model !== 'string')
    return { ok: false, error: openaiError(400, 'you must provide a model parameter', 'model') };
  if (!Array.isArray(b.messages))
    return { ok: false, error: openaiError(400, "'messages' is a required property", 'messages') };
  const messages: NeutralMessage[] = [];
  for (let i = 0; i < b.messages.length; i++) {
    const m = messageOf(b.messages[i]);
    if (typeof m === 'string')
      return { ok: false, error: openaiError(400, `messages[${i}]: ${m}`, `messages[${i}]`) };
    messages.push(m);
  }
  return {
    ok: true,
    conversation: {
      provider: 'openai',
      protocol: 'openai.chat',
      model: b.model,
      messages,
      tools: toolsOf(b),
      stream: b.stream === true,
      streamUsage: b.stream_options?.include_usage === true,
      ...(typeof b.response_format?.type === 'string' ? { responseFormat: b.response_format.type } : {}),
    },
  };
}
