/**
 * Ollama's native requests read into the neutral conversation: `POST /api/chat` (messages with
 * `tool_calls` and `tool` results, `tools`, `format`, `stream` on by default) and
 * `POST /api/generate` (a `prompt` and an optional `system`).
 */
import type { NeutralMessage, NeutralTool, NeutralToolCall } from '../../conversation';
import type { DecodeContext, DecodeResult } from '../codec';
import { derivedCallId, recallCall } from '../gemini/ids';
import { ollamaError } from './errors';

/** Where a reply's call ids are remembered under their place in the thread (see ../gemini/ids). */
export const CALL_SPACE = 'ollama.tool_calls';

const fail = (message: string, param?: string): DecodeResult => ({
  ok: false,
  error: ollamaError(400, message, param),
});

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `format`: "json", a JSON schema, or nothing. */
function formatOf(format: unknown): { responseFormat?: string } | string {
  if (format === undefined || format === null || format === '') return {};
  if (format === 'json') return { responseFormat: 'json_object' };
  if (isObject(format)) return { responseFormat: 'json_schema' };
  return `invalid format: ${JSON.stringify(format)}; expected "json" or a JSON schema`;
}

function toolsOf(raw: unknown): NeutralTool[] | string {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return 'tools must be a list';
  const tools: NeutralTool[] = [];
  for (let i = 0; i < raw.length; i++) {
    const f = raw[i]?.function;
    if (!isObject(f) || typeof f.name !== 'string' || f.name === '')
      return `tools[${i}].function.name must be a non-empty string`;
    tools.push({ name: f.name, description: f.description, parameters: f.parameters });
  }
  return tools;
}

/** The thread so far, and the latest assistant turn's calls with which of them a result answered. */
class Thread {
  readonly messages: NeutralMessage[] = [];
  private turns = 0;
  private userText: string | null = null;
  private calls: NeutralToolCall[] = [];
  private wireIds: Array<string | undefined> = [];
  private answered = new Set<number>();

  constructor(private readonly ctx: DecodeContext) {}

  user(message: NeutralMessage): void {
    this.messages.push(message);
    if (message.role === 'user' && message.text !== null) this.userText = message.text;
  }

  /**
   * The assistant's calls get the ids the reply gave them (clients send back ids of their own
   * making, LangChain's a fresh uuid, or none), else the wire's, else one derived from their place.
   */
  assistant(text: string | null, raw: unknown[], reasoning: string | undefined): string | undefined {
    const turn = this.turns++;
    const calls: NeutralToolCall[] = [];
    const wireIds: Array<string | undefined> = [];
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i] as Record<string, any>;
      const f = c?.function;
      if (!isObject(f) || typeof f.name !== 'string')
        return `tool_calls[${i}].function.name must be a string`;
      if (f.arguments !== undefined && f.arguments !== null && !isObject(f.arguments))
        return `tool_calls[${i}].function.arguments must be an object`;
      const args = JSON.stringify(f.arguments ?? {});
      const wireId = typeof c.id === 'string' && c.id !== '' ? c.id : undefined;
      const id =
        recallCall(this.ctx.store, turn, this.userText, i, f.name, args, CALL_SPACE) ??
        wireId ??
        derivedCallId(turn, i);
      calls.push({ id, name: f.name, arguments: args });
      wireIds.push(wireId);
    }
    this.messages.push({
      role: 'assistant',
      text,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(reasoning ? { reasoning } : {}),
    });
    this.calls = calls;
    this.wireIds = wireIds;
    this.answered = new Set();
    return undefined;
  }

  /** The call a result answers: by `tool_call_id`, else the next unanswered call of `tool_name`, else the next one. */
  answer(callId: unknown, name: unknown): string {
    let i = -1;
    if (typeof callId === 'string' && callId !== '')
      i = this.calls.findIndex(
        (c, k) => (c.id === callId || this.wireIds[k] === callId) && !this.answered.has(k),
      );
    if (i === -1 && typeof name === 'string' && name !== '')
      i = this.calls.findIndex((c, k) => c.name === name && !this.answered.has(k));
    if (i === -1) i = this.calls.findIndex((_, k) => !this.answered.has(k));
    if (i === -1) return typeof callId === 'string' ? callId : '';
    this.answered.add(i);
    return this.calls[i].id;
  }
}

function textOf(content: unknown): string | null | undefined {
  if (content === undefined || content === null) return null;
  return typeof content === 'string' ? content : undefined;
}

/** What both endpoints check first: a body object with a model, and `stream` a boolean if given. */
function common(b: unknown): { body: Record<string, any> } | { refused: DecodeResult } {
  if (!isObject(b)) return { refused: fail('the request body must be a JSON object') };
  if (typeof b.model !== 'string' || b.model === '') return { refused: fail('model is required', 'model') };
  if (b.stream !== undefined && b.stream !== null && typeof b.stream !== 'boolean')
    return { refused: fail('stream must be true or false', 'stream') };
  return { body: b };
}

export function decodeOllamaChat(body: unknown, ctx: DecodeContext): DecodeResult {
  const checked = common(body);
  if ('refused' in checked) return checked.refused;
  const b = checked.body;
  if (b.messages !== undefined && b.messages !== null && !Array.isArray(b.messages))
    return fail('messages must be a list', 'messages');
  const format = formatOf(b.format);
  if (typeof format === 'string') return fail(format, 'format');
  const tools = toolsOf(b.tools);
  if (typeof tools === 'string') return fail(tools, 'tools');
  const thread = new Thread(ctx);
  const raw: unknown[] = b.messages ?? [];
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i];
    const at = `messages[${i}]`;
    if (!isObject(m)) return fail(`${at} must be an object`, at);
    const text = textOf(m.content);
    if (text === undefined) return fail(`${at}.content must be a string`, `${at}.content`);
    switch (m.role) {
      case 'system':
      case 'user':
        thread.user({ role: m.role, text });
        break;
      case 'assistant': {
        if (m.tool_calls !== undefined && m.tool_calls !== null && !Array.isArray(m.tool_calls))
          return fail(`${at}.tool_calls must be a list`, `${at}.tool_calls`);
        const reasoning = typeof m.thinking === 'string' && m.thinking !== '' ? m.thinking : undefined;
        const problem = thread.assistant(text, m.tool_calls ?? [], reasoning);
        if (problem) return fail(`${at}.${problem}`, at);
        break;
      }
      case 'tool':
        thread.user({ role: 'tool', text, toolCallId: thread.answer(m.tool_call_id, m.tool_name) });
        break;
      default:
        return fail(
          `${at}.role ${JSON.stringify(m.role)} is not one of system, user, assistant, tool`,
          `${at}.role`,
        );
    }
  }
  return {
    ok: true,
    conversation: {
      provider: 'ollama',
      protocol: 'ollama.chat',
      model: b.model,
      messages: thread.messages,
      tools,
      // Ollama streams unless the request says `"stream": false`.
      stream: b.stream !== false,
      streamUsage: true,
      ...format,
    },
  };
}

export function decodeOllamaGenerate(body: unknown): DecodeResult {
  const checked = common(body);
  if ('refused' in checked) return checked.refused;
  const b = checked.body;
  const prompt = textOf(b.prompt);
  if (prompt === undefined) return fail('prompt must be a string', 'prompt');
  const system = textOf(b.system);
  if (system === undefined) return fail('system must be a string', 'system');
  const format = formatOf(b.format);
  if (typeof format === 'string') return fail(format, 'format');
  const messages: NeutralMessage[] = [];
  if (system) messages.push({ role: 'system', text: system });
  messages.push({ role: 'user', text: prompt });
  return {
    ok: true,
    conversation: {
      provider: 'ollama',
      protocol: 'ollama.generate',
      model: b.model,
      messages,
      tools: [],
      stream: b.stream !== false,
      streamUsage: true,
      ...format,
    },
  };
}
