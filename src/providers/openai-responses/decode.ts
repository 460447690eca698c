import type {
  Conversation,
  ConversationStore,
  NeutralError,
  NeutralMessage,
  NeutralTool,
  NeutralToolCall,
} from '../../conversation';
import type { DecodeContext, DecodeResult } from '../codec';
import { rememberEcho } from './echo';

/** The API's 400 for a bad parameter; the message names the parameter as the API does. */
function invalid(message: string, code?: string, param?: string): NeutralError {
  return {
    status: 400,
    type: 'invalid_request_error',
    message,
    ...(param !== undefined ? { param } : {}),
    ...(code ? { code } : {}),
  };
}

const missing = (param: string) =>
  invalid(`Missing required parameter: '${param}'.`, 'missing_required_parameter', param);

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const wrongType = (param: string, expected: string, value: unknown) =>
  invalid(
    `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`,
    'invalid_type',
    param,
  );

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of a content value: a string, or the text parts of a part list joined; null without any. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  let text: string | null = null;
  for (const p of content) {
    if (isObject(p) && (p.type === 'input_text' || p.type === 'output_text') && typeof p.text === 'string')
      text = (text ?? '') + p.text;
  }
  return text;
}

/** Part of an assistant turn: consecutive output items of one response form one neutral message. */
interface AssistantPiece {
  text: string | null;
  toolCalls?: NeutralToolCall[];
  reasoning?: string;
  opaque?: unknown[];
}

type Piece =
  | { assistant: AssistantPiece }
  | { message: NeutralMessage }
  | { skip: true }
  | { error: NeutralError };

function reasoningTextOf(item: Record<string, any>): string | undefined {
  const texts: string[] = [];
  if (Array.isArray(item.summary))
    for (const s of item.summary) if (isObject(s) && typeof s.text === 'string' && s.text) texts.push(s.text);
  if (texts.length === 0 && Array.isArray(item.content))
    for (const c of item.content) if (isObject(c) && typeof c.text === 'string' && c.text) texts.push(c.text);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

const ROLES = "'assistant', 'system', 'developer', and 'user'";

function messagePiece(item: Record<string, any>, at: string): Piece {
  const { role, content } = item;
  if (role === undefined) return { error: missing(`${at}.role`) };
  if (content === undefined) return { error: missing(`${at}.content`) };
  if (typeof content !== 'string' && !Array.isArray(content))
    return { error: wrongType(`${at}.content`, 'one of a string or an array of content parts', content) };
  const text = textOf(content);
  switch (role) {
    case 'user':
      return { message: { role: 'user', text } };
    case 'system':
    case 'developer':
      return { message: { role: 'system', text } };
    case 'assistant':
      return { assistant: { text } };
    default:
      return {
        error: invalid(
          `Invalid value for '${at}.role': ${JSON.stringify(role)}. Supported values are: ${ROLES}.`,
          'invalid_value',
        ),
      };
  }
}

function callPiece(item: Record<string, any>, at: string, argsField: 'arguments' | 'input'): Piece {
  if (typeof item.call_id !== 'string') return { error: missing(`${at}.call_id`) };
  if (typeof item.name !== 'string') return { error: missing(`${at}.name`) };
  const raw = item[argsField];
  if (typeof raw !== 'string') return { error: missing(`${at}.${argsField}`) };
  return { assistant: { text: null, toolCalls: [{ id: item.call_id, name: item.name, arguments: raw }] } };
}

function outputPiece(item: Record<string, any>, at: string): Piece {
  if (typeof item.call_id !== 'string') return { error: missing(`${at}.call_id`) };
  const { output } = item;
  if (output === undefined) return { error: missing(`${at}.output`) };
  if (typeof output !== 'string' && !Array.isArray(output))
    return { error: wrongType(`${at}.output`, 'one of a string or an array of content parts', output) };
  return { message: { role: 'tool', text: textOf(output), toolCallId: item.call_id } };
}

/** Items from built-in tools and server state: valid input the neutral thread has no place for. */
const PASSED_OVER = new Set([
  'additional_tools',
  'apply_patch_call',
  'apply_patch_call_output',
  'code_interpreter_call',
  'compaction',
  'compaction_trigger',
  'computer_call',
  'computer_call_output',
  'configuration_update',
  'file_search_call',
  'image_generation_call',
  'local_shell_call',
  'local_shell_call_output',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'mcp_list_tools',
  'program',
  'program_output',
  'shell_call',
  'shell_call_output',
  'tool_search_call',
  'tool_search_output',
  'web_search_call',
]);

function itemPiece(item: unknown, at: string, store: ConversationStore): Piece {
  if (!isObject(item)) return { error: wrongType(at, 'an object', item) };
  const type = item.type;
  if (type === undefined || type === 'message') {
    return messagePiece(item, at);
  }
  switch (type) {
    case 'function_call':
      return callPiece(item, at, 'arguments');
    case 'custom_tool_call':
      return callPiece(item, at, 'input');
    case 'function_call_output':
    case 'custom_tool_call_output':
      return outputPiece(item, at);
    case 'reasoning': {
      const reasoning = reasoningTextOf(item);
      return { assistant: { text: null, ...(reasoning ? { reasoning } : {}), opaque: [item] } };
    }
    case 'item_reference': {
      if (typeof item.id !== 'string') return { error: missing(`${at}.id`) };
      const stored = store.get(item.id);
      if (stored?.length !== 1 || stored[0].role !== 'assistant')
        return {
          error: {
            status: 404,
            type: 'invalid_request_error',
            message: `Item with id '${item.id}' not found.`,
          },
        };
      const { role: _role, ...piece } = stored[0];
      return { assistant: piece };
    }
    default:
      if (typeof type === 'string' && PASSED_OVER.has(type)) return { skip: true };
      return {
        error: invalid(`Invalid value for '${at}.type': ${JSON.stringify(type)}.`, 'invalid_value'),
      };
  }
}

function merge(into: NeutralMessage, piece: AssistantPiece): void {
  if (piece.text !== null) into.text = (into.text ?? '') + piece.text;
  if (piece.toolCalls) into.toolCalls = [...(into.toolCalls ?? []), ...piece.toolCalls];
  if (piece.reasoning)
    into.reasoning = into.reasoning ? `${into.reasoning}\n\n${piece.reasoning}` : piece.reasoning;
  if (piece.opaque) into.opaque = [...(into.opaque ?? []), ...piece.opaque];
}

function inputMessages(input: unknown[], store: ConversationStore): NeutralMessage[] | NeutralError {
  const messages: NeutralMessage[] = [];
  let open: NeutralMessage | undefined;
  for (let i = 0; i < input.length; i++) {
    const piece = itemPiece(input[i], `input[${i}]`, store);
    if ('error' in piece) return piece.error;
    if ('skip' in piece) continue;
    if ('message' in piece) {
      messages.push(piece.message);
      open = undefined;
      continue;
    }
    if (!open) {
      open = { role: 'assistant', text: null };
      messages.push(open);
    }
    merge(open, piece.assistant);
  }
  return messages;
}

function toolsOf(raw: unknown): NeutralTool[] | NeutralError {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return wrongType('tools', 'an array', raw);
  const tools: NeutralTool[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i];
    if (!isObject(t)) return wrongType(`tools[${i}]`, 'an object', t);
    if (typeof t.type !== 'string') return missing(`tools[${i}].type`);
    if (t.type !== 'function' && t.type !== 'custom') continue; // built-in tools (web_search…)
    if (typeof t.name !== 'string') return missing(`tools[${i}].name`);
    tools.push({
      name: t.name,
      ...(typeof t.description === 'string' ? { description: t.description } : {}),
      ...(t.parameters !== undefined && t.parameters !== null ? { parameters: t.parameters } : {}),
    });
  }
  return tools;
}

/** Function tools come back normalized (`description` null when absent, `strict` defaults to true). */
function echoTool(t: Record<string, any>): unknown {
  if (t.type !== 'function') return t;
  return {
    type: 'function',
    description: t.description ?? null,
    name: t.name,
    parameters: t.parameters ?? null,
    strict: t.strict ?? true,
  };
}

const isError = (v: unknown): v is NeutralError =>
  isObject(v) && typeof v.status === 'number' && typeof v.message === 'string';

export function decodeResponses(body: unknown, ctx: DecodeContext): DecodeResult {
  if (!isObject(body)) return { ok: false, error: invalid('The request body must be a JSON object.') };
  const b = body;
  if (typeof b.model !== 'string') return { ok: false, error: missing('model') };

  const input = b.input;
  if (input !== undefined && typeof input !== 'string' && !Array.isArray(input))
    return {
      ok: false,
      error: wrongType('input', 'one of a string or an array of input items', input),
    };

  const prev = b.previous_response_id;
  if (prev !== undefined && prev !== null && typeof prev !== 'string')
    return { ok: false, error: wrongType('previous_response_id', 'a string', prev) };
  let thread: NeutralMessage[] = [];
  if (typeof prev === 'string') {
    const stored = ctx.store.get(prev);
    if (!stored)
      return {
        ok: false,
        error: invalid(`Previous response with id '${prev}' not found.`, 'previous_response_not_found'),
      };
    thread = stored;
  }

  const instructions = b.instructions;
  if (instructions !== undefined && instructions !== null && typeof instructions !== 'string')
    return { ok: false, error: wrongType('instructions', 'a string', instructions) };
  // `instructions: ""` is no system prompt at all, as the API reads it.
  const system: NeutralMessage[] =
    typeof instructions === 'string' && instructions !== '' ? [{ role: 'system', text: instructions }] : [];

  const fromInput =
    typeof input === 'string'
      ? [{ role: 'user' as const, text: input }]
      : inputMessages(Array.isArray(input) ? input : [], ctx.store);
  if (isError(fromInput)) return { ok: false, error: fromInput };

  const tools = toolsOf(b.tools);
  if (isError(tools)) return { ok: false, error: tools };

  const conversation: Conversation = {
    provider: 'openai',
    protocol: 'openai.responses',
    model: b.model,
    // Stored turns are copied, so a later request never changes an earlier one's thread.
    messages: [...system, ...thread.map((m) => ({ ...m })), ...fromInput],
    tools,
    stream: b.stream === true,
    // `response.completed` always carries the usage.
    streamUsage: true,
    ...(typeof b.text?.format?.type === 'string' ? { responseFormat: b.text.format.type } : {}),
  };
  rememberEcho(conversation, {
    instructions: instructions ?? null,
    instructionMessages: system.length,
    previousResponseId: typeof prev === 'string' ? prev : null,
    promptCacheKey: typeof b.prompt_cache_key === 'string' ? b.prompt_cache_key : null,
    promptCacheRetention: typeof b.prompt_cache_retention === 'string' ? b.prompt_cache_retention : null,
    safetyIdentifier: typeof b.safety_identifier === 'string' ? b.safety_identifier : null,
    tools: Array.isArray(b.tools) ? b.tools.map(echoTool) : [],
    toolChoice: b.tool_choice ?? 'auto',
    parallelToolCalls: b.parallel_tool_calls ?? true,
    store: b.store !== false,
    encryptedReasoning: Array.isArray(b.include) && b.include.includes('reasoning.encrypted_content'),
    temperature: typeof b.temperature === 'number' ? b.temperature : 1,
    frequencyPenalty: typeof b.frequency_penalty === 'number' ? b.frequency_penalty : 0,
    presencePenalty: typeof b.presence_penalty === 'number' ? b.presence_penalty : 0,
    topP: typeof b.top_p === 'number' ? b.top_p : 1,
    maxOutputTokens: typeof b.max_output_tokens === 'number' ? b.max_output_tokens : null,
    maxToolCalls: typeof b.max_tool_calls === 'number' ? b.max_tool_calls : null,
    reasoning: { effort: b.reasoning?.effort ?? null, summary: b.reasoning?.summary ?? null },
    serviceTier: typeof b.service_tier === 'string' ? b.service_tier : null,
    text: { format: b.text?.format ?? { type: 'text' }, verbosity: b.text?.verbosity ?? 'medium' },
    truncation: b.truncation ?? 'disabled',
    topLogprobs: typeof b.top_logprobs === 'number' ? b.top_logprobs : 0,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
    background: b.background === true,
  });
  return { ok: true, conversation };
}
