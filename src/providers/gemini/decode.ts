import type { NeutralMessage, NeutralTool, NeutralToolCall } from '../../conversation';
import type { DecodeContext, DecodeResult } from '../codec';
import { invalidArgument } from './errors';
import { derivedCallId, recallCall } from './ids';

/** `/v1beta/models/gemini-2.5-flash:generateContent`, also `/v1/`, `/v1alpha/` and tuned models. */
const ROUTE =
  /^\/(?:v1|v1beta|v1alpha)\/((?:models|tunedModels)\/[^/:]+):(generateContent|streamGenerateContent)$/;

export function routeOf(path: string): { model: string; stream: boolean } | undefined {
  const m = ROUTE.exec(path);
  if (!m) return undefined;
  let name = m[1];
  try {
    name = decodeURIComponent(name);
  } catch {
    // keep it as sent
  }
  return {
    model: name.startsWith('models/') ? name.slice('models/'.length) : name,
    stream: m[2] === 'streamGenerateContent',
  };
}

/** The REST API takes proto field names in camelCase or snake_case (`inlineData` / `inline_data`). */
function field(obj: any, camel: string, snake: string): any {
  return obj[camel] !== undefined ? obj[camel] : obj[snake];
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Part kinds that carry data; a part with none of them is the API's "required oneof field 'data'" error. */
const DATA_FIELDS = [
  'text',
  'inlineData',
  'inline_data',
  'fileData',
  'file_data',
  'functionCall',
  'function_call',
  'functionResponse',
  'function_response',
  'executableCode',
  'executable_code',
  'codeExecutionResult',
  'code_execution_result',
  'toolCall',
  'tool_call',
  'toolResponse',
  'tool_response',
];

function asText(value: unknown): string | null {
  if (value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function sameKeys(obj: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(obj);
  return own.length === keys.length && keys.every((k) => k in obj);
}

/**
 * A `functionResponse.response` as tool-result text. The API reads `output` as the result
 * and `error` as a failure ("if neither, the whole response is the output"); the Vercel AI
 * SDK sends `{ name, content }` / `{ name, error }`, unwrapped the same way.
 */
export function resultOf(name: string, response: unknown): { text: string | null; isError: boolean } {
  if (!isObject(response)) return { text: asText(response ?? undefined), isError: false };
  if (sameKeys(response, ['output'])) return { text: asText(response.output), isError: false };
  if (sameKeys(response, ['error'])) return { text: asText(response.error), isError: true };
  if (response.name === name && sameKeys(response, ['name', 'content']))
    return { text: asText(response.content), isError: false };
  if (response.name === name && sameKeys(response, ['name', 'error']))
    return { text: asText(response.error), isError: true };
  const isError = 'error' in response && response.error !== null && response.error !== undefined;
  return { text: JSON.stringify(response), isError };
}

/** The output format asked for, by its Chat name: a schema, JSON without one, or plain text. */
function responseFormatOf(body: any): { responseFormat?: string } {
  const config = field(body ?? {}, 'generationConfig', 'generation_config');
  if (!isObject(config)) return {};
  if (
    field(config, 'responseSchema', 'response_schema') !== undefined ||
    field(config, 'responseJsonSchema', 'response_json_schema') !== undefined
  )
    return { responseFormat: 'json_schema' };
  const mime = field(config, 'responseMimeType', 'response_mime_type');
  if (mime === 'application/json') return { responseFormat: 'json_object' };
  return mime === 'text/plain' ? { responseFormat: 'text' } : {};
}

type Fail = { ok: false; error: ReturnType<typeof invalidArgument> };
const fail = (f: string, problem: string): Fail => ({ ok: false, error: invalidArgument(f, problem) });

function systemOf(raw: unknown): NeutralMessage[] | Fail {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return [{ role: 'system', text: raw }];
  if (!isObject(raw) || !Array.isArray(raw.parts))
    return fail('system_instruction.parts', 'system_instruction must be a Content with parts');
  // One system message per text part: the AI SDK sends each system message as a part.
  const out: NeutralMessage[] = [];
  raw.parts.forEach((p: unknown) => {
    if (isObject(p) && typeof p.text === 'string') out.push({ role: 'system', text: p.text });
  });
  return out.length > 0 ? out : [{ role: 'system', text: null }];
}

function toolsOf(raw: unknown): NeutralTool[] | Fail {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return fail('tools', 'tools must be a list of Tool');
  const tools: NeutralTool[] = [];
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i];
    if (!isObject(t)) return fail(`tools[${i}]`, 'each tool must be an object');
    const decls = field(t, 'functionDeclarations', 'function_declarations');
    if (decls === undefined || decls === null) continue; // googleSearch, codeExecution, urlContext…
    if (!Array.isArray(decls))
      return fail(`tools[${i}].function_declarations`, 'function_declarations must be a list');
    for (let j = 0; j < decls.length; j++) {
      const d = decls[j];
      if (!isObject(d) || typeof d.name !== 'string' || d.name === '')
        return fail(`tools[${i}].function_declarations[${j}].name`, 'Name cannot be empty.');
      const parameters = d.parameters ?? field(d, 'parametersJsonSchema', 'parameters_json_schema');
      tools.push({
        name: d.name,
        ...(d.description !== undefined ? { description: d.description } : {}),
        ...(parameters !== undefined ? { parameters } : {}),
      });
    }
  }
  return tools;
}

/** Decoding state across `contents`: the thread so far and what the latest model turn asked for. */
class Thread {
  readonly messages: NeutralMessage[] = [];
  /** Assistant messages so far (the turn position of the next one). */
  turns = 0;
  /** Latest user text, as `matchKeysOf` reads it. */
  userText: string | null = null;
  /** The open model turn (consecutive model contents merge into it) and its position. */
  private model: { message: NeutralMessage; turn: number; userText: string | null } | undefined;
  /** The latest model turn's calls, and which of them a functionResponse already answered. */
  private calls: NeutralToolCall[] = [];
  private answered = new Set<number>();

  constructor(private readonly ctx: DecodeContext) {}

  modelTurn(): { message: NeutralMessage; turn: number; userText: string | null } {
    if (!this.model) {
      const message: NeutralMessage = { role: 'assistant', text: null };
      this.model = { message, turn: this.turns++, userText: this.userText };
      this.messages.push(message);
      this.calls = [];
      this.answered = new Set();
    }
    return this.model;
  }

  closeModelTurn(): void {
    this.model = undefined;
  }

  addCall(raw: Record<string, any>): void {
    const { message, turn, userText } = this.modelTurn();
    if (!message.toolCalls) message.toolCalls = [];
    const calls = message.toolCalls;
    const index = calls.length;
    const name = String(raw.name);
    const args = JSON.stringify(raw.args ?? {});
    const id =
      typeof raw.id === 'string' && raw.id !== ''
        ? raw.id
        : (recallCall(this.ctx.store, turn, userText, index, name, args) ?? derivedCallId(turn, index));
    const call = { id, name, arguments: args };
    calls.push(call);
    this.calls = calls;
  }

  /** By id when the response has one, else the next unanswered call of that name in the latest model turn. */
  answer(name: string, id: unknown): string {
    if (typeof id === 'string' && id !== '') {
      const i = this.calls.findIndex((c, k) => c.id === id && !this.answered.has(k));
      if (i !== -1) this.answered.add(i);
      return id;
    }
    const i = this.calls.findIndex((c, k) => c.name === name && !this.answered.has(k));
    if (i === -1) return '';
    this.answered.add(i);
    return this.calls[i].id;
  }

  user(message: NeutralMessage): void {
    this.messages.push(message);
    if (message.role === 'user' && message.text !== null) this.userText = message.text;
  }
}

function modelContent(thread: Thread, parts: unknown[], at: string): Fail | undefined {
  const turn = thread.modelTurn();
  const m = turn.message;
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j] as Record<string, any>;
    const signature = field(p, 'thoughtSignature', 'thought_signature');
    if (typeof signature === 'string') m.opaque = [...(m.opaque ?? []), { thoughtSignature: signature }];
    const call = field(p, 'functionCall', 'function_call');
    if (call !== undefined && call !== null) {
      if (!isObject(call) || typeof call.name !== 'string' || call.name === '')
        return fail(`${at}.parts[${j}].function_call.name`, 'Name cannot be empty.');
      thread.addCall(call);
    } else if (typeof p.text === 'string') {
      if (p.thought === true) m.reasoning = (m.reasoning ?? '') + p.text;
      else m.text = (m.text ?? '') + p.text;
    }
  }
  return undefined;
}

function userContent(thread: Thread, parts: unknown[], at: string): Fail | undefined {
  let pending: { text: string | null } | undefined;
  const flush = () => {
    if (pending) thread.user({ role: 'user', text: pending.text });
    pending = undefined;
  };
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j] as Record<string, any>;
    const response = field(p, 'functionResponse', 'function_response');
    if (response !== undefined && response !== null) {
      if (!isObject(response) || typeof response.name !== 'string' || response.name === '')
        return fail(`${at}.parts[${j}].function_response.name`, 'Name cannot be empty.');
      flush();
      const { text, isError } = resultOf(response.name, response.response);
      thread.user({
        role: 'tool',
        text,
        toolCallId: thread.answer(response.name, response.id),
        ...(isError ? { isError: true } : {}),
      });
      continue;
    }
    pending ??= { text: null };
    if (typeof p.text === 'string' && p.thought !== true) pending.text = (pending.text ?? '') + p.text;
  }
  flush();
  if (parts.length === 0) thread.user({ role: 'user', text: null });
  return undefined;
}

export function decodeGemini(body: unknown, ctx: DecodeContext): DecodeResult {
  const route = routeOf(ctx.path);
  if (!route) return fail('model', `unsupported path ${ctx.path}`);
  if (route.stream && ctx.query.get('alt') !== 'sse')
    return {
      ok: false,
      error: {
        status: 400,
        type: 'INVALID_ARGUMENT',
        message:
          'jest-understudy serves streamGenerateContent as server-sent events only: add ?alt=sse to the URL ' +
          '(the official SDKs always do).',
      },
    };
  if (!isObject(body))
    return {
      ok: false,
      error: {
        status: 400,
        type: 'INVALID_ARGUMENT',
        message: 'Invalid JSON payload received. Expected an object.',
      },
    };
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return fail('contents', 'contents is not specified');

  const system = systemOf(field(body, 'systemInstruction', 'system_instruction'));
  if (!Array.isArray(system)) return system;
  const tools = toolsOf(body.tools);
  if (!Array.isArray(tools)) return tools;

  const thread = new Thread(ctx);
  thread.messages.push(...system);
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i];
    const at = `contents[${i}]`;
    if (!isObject(c)) return fail(at, 'each content must be an object');
    if (!Array.isArray(c.parts)) return fail(`${at}.parts`, 'contents.parts must be a list of Part');
    for (let j = 0; j < c.parts.length; j++) {
      const p = c.parts[j];
      if (!isObject(p) || !DATA_FIELDS.some((f) => p[f] !== undefined && p[f] !== null))
        return fail(`${at}.parts[${j}].data`, "required oneof field 'data' must have one initialized field");
    }
    const role = c.role ?? 'user';
    let failure: Fail | undefined;
    if (role === 'model') {
      failure = modelContent(thread, c.parts, at);
    } else if (role === 'user' || role === 'function') {
      thread.closeModelTurn();
      failure = userContent(thread, c.parts, at);
    } else {
      return fail(`${at}.role`, 'Please use a valid role: user, model.');
    }
    if (failure) return failure;
  }

  return {
    ok: true,
    conversation: {
      provider: 'gemini',
      protocol: 'gemini.generateContent',
      model: route.model,
      messages: thread.messages,
      tools,
      stream: route.stream,
      // The API always reports usageMetadata, streamed or not.
      streamUsage: true,
      ...responseFormatOf(body),
    },
  };
}
