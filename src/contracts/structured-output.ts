/**
 * Structured outputs: when a request asks for JSON that fits a schema (a response format, a
 * forced tool, a strict tool, Gemini's response schema), the real API only ever answers with
 * output that fits. A fixture that does not is a fixture the API could never have produced.
 */
import type { NeutralReply } from '../conversation';
import { valueProblem } from './json-schema';
import { type Violation, violation } from './violation';

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the request asks the reply to be. */
export interface OutputContract {
  /** The text must be JSON (an object for `json_object`), fitting `schema` when there is one. */
  json?: { schema?: unknown; objectOnly: boolean; where: string };
  /** The reply must call a tool: one of `names` (any when empty). */
  forcedTool?: { names: string[]; where: string };
  /** Tools whose arguments must fit their parameters (forced or strict), by name. */
  schemas: Map<string, { schema: unknown; why: string }>;
}

const empty = (): OutputContract => ({ schemas: new Map() });

function jsonFormat(format: unknown, where: string): OutputContract['json'] {
  if (!isObject(format)) return undefined;
  if (format.type === 'json_schema') {
    const schema = isObject(format.json_schema) ? format.json_schema.schema : format.schema;
    return { schema, objectOnly: false, where };
  }
  if (format.type === 'json_object') return { objectOnly: true, where };
  return undefined;
}

/** OpenAI Chat (`chat`) or Responses function tools, by name. */
function openaiTools(tools: unknown, chat: boolean): Map<string, { parameters: unknown; strict: boolean }> {
  const out = new Map<string, { parameters: unknown; strict: boolean }>();
  if (!Array.isArray(tools)) return out;
  for (const t of tools) {
    const fn = chat ? t?.function : t;
    if (t?.type === 'function' && isObject(fn) && typeof fn.name === 'string')
      out.set(fn.name, { parameters: fn.parameters, strict: fn.strict === true });
  }
  return out;
}

function openaiContract(body: Record<string, any>, chat: boolean): OutputContract {
  const c = empty();
  c.json = chat
    ? jsonFormat(body.response_format, 'response_format')
    : jsonFormat(body.text?.format, 'text.format');
  const tools = openaiTools(body.tools, chat);
  for (const [name, t] of tools)
    if (t.strict) c.schemas.set(name, { schema: t.parameters, why: `the tool ${name} is strict` });
  const choice = body.tool_choice;
  const forced = chat ? choice?.function?.name : choice?.name;
  if (choice === 'required') c.forcedTool = { names: [], where: 'tool_choice: "required"' };
  else if (isObject(choice) && choice.type === 'function' && typeof forced === 'string') {
    c.forcedTool = { names: [forced], where: `tool_choice forces ${forced}` };
    const tool = tools.get(forced);
    if (tool) c.schemas.set(forced, { schema: tool.parameters, why: `tool_choice forces ${forced}` });
  }
  return c;
}

/** Ollama's `format`: "json" (an object) or a JSON schema the text must fit. */
function ollamaContract(body: Record<string, any>): OutputContract {
  const c = empty();
  if (body.format === 'json') c.json = { objectOnly: true, where: 'format: "json"' };
  else if (isObject(body.format)) c.json = { schema: body.format, objectOnly: false, where: 'format' };
  return c;
}

function anthropicContract(body: Record<string, any>): OutputContract {
  const c = empty();
  const format = body.output_config?.format ?? body.output_format;
  if (isObject(format) && format.type === 'json_schema')
    c.json = { schema: format.schema, objectOnly: false, where: 'output_config.format' };
  const tools = new Map<string, Record<string, any>>();
  if (Array.isArray(body.tools))
    for (const t of body.tools) if (isObject(t) && typeof t.name === 'string') tools.set(t.name, t);
  for (const [name, t] of tools)
    if (t.strict === true) c.schemas.set(name, { schema: t.input_schema, why: `the tool ${name} is strict` });
  const choice = body.tool_choice;
  if (choice?.type === 'any') c.forcedTool = { names: [], where: 'tool_choice: { type: "any" }' };
  else if (choice?.type === 'tool' && typeof choice.name === 'string') {
    c.forcedTool = { names: [choice.name], where: `tool_choice forces ${choice.name}` };
    const tool = tools.get(choice.name);
    if (tool)
      c.schemas.set(choice.name, { schema: tool.input_schema, why: `tool_choice forces ${choice.name}` });
  }
  return c;
}

const field = (obj: Record<string, any> | undefined, camel: string, snake: string) =>
  obj?.[camel] ?? obj?.[snake];

/** Gemini's OpenAPI-style `Schema` as JSON Schema: lower-case types, `nullable` as a null type. */
export function openapiToJsonSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'propertyOrdering' || key === 'property_ordering') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && isObject(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openapiToJsonSchema(v)]));
    else if (key === 'items') out.items = openapiToJsonSchema(value);
    else if ((key === 'anyOf' || key === 'any_of') && Array.isArray(value))
      out.anyOf = value.map(openapiToJsonSchema);
    else out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function geminiContract(body: Record<string, any>): OutputContract {
  const c = empty();
  const config = field(body, 'generationConfig', 'generation_config');
  const jsonSchema =
    field(config, 'responseJsonSchema', 'response_json_schema') ?? config?._responseJsonSchema;
  const schema = field(config, 'responseSchema', 'response_schema');
  if (jsonSchema !== undefined)
    c.json = { schema: jsonSchema, objectOnly: false, where: 'generationConfig.responseJsonSchema' };
  else if (schema !== undefined)
    c.json = {
      schema: openapiToJsonSchema(schema),
      objectOnly: false,
      where: 'generationConfig.responseSchema',
    };
  else if (field(config, 'responseMimeType', 'response_mime_type') === 'application/json')
    c.json = { objectOnly: false, where: 'generationConfig.responseMimeType' };
  const calling = field(
    field(body, 'toolConfig', 'tool_config'),
    'functionCallingConfig',
    'function_calling_config',
  );
  if (String(calling?.mode).toUpperCase() === 'ANY') {
    const names = field(calling, 'allowedFunctionNames', 'allowed_function_names');
    c.forcedTool = {
      names: Array.isArray(names) ? names.map(String) : [],
      where: 'toolConfig.functionCallingConfig.mode ANY',
    };
    if (Array.isArray(body.tools))
      for (const t of body.tools)
        for (const d of field(t, 'functionDeclarations', 'function_declarations') ?? []) {
          if (
            typeof d?.name !== 'string' ||
            (c.forcedTool.names.length > 0 && !c.forcedTool.names.includes(d.name))
          )
            continue;
          const json = field(d, 'parametersJsonSchema', 'parameters_json_schema');
          const params = json ?? (d.parameters !== undefined ? openapiToJsonSchema(d.parameters) : undefined);
          if (params !== undefined)
            c.schemas.set(d.name, { schema: params, why: 'function calling mode ANY' });
        }
  }
  return c;
}

/** What `body` (on `protocol`) asks the reply to be. */
export function outputContractOf(protocol: string, body: Record<string, any>): OutputContract {
  switch (protocol) {
    case 'openai.chat':
      return openaiContract(body, true);
    case 'openai.responses':
      return openaiContract(body, false);
    case 'anthropic.messages':
      return anthropicContract(body);
    case 'gemini.generateContent':
      return geminiContract(body);
    case 'ollama.chat':
    case 'ollama.generate':
      return ollamaContract(body);
    default:
      return empty();
  }
}

/**
 * Where the fixture's reply breaks what the request asked for, or undefined. A reply cut
 * short (`length`, `content_filter`) is exempt: the API does send those unfinished.
 */
export function checkReply(
  contract: OutputContract,
  reply: NeutralReply,
  fixture: string,
): Violation | undefined {
  if (reply.finishReason === 'length' || reply.finishReason === 'content_filter') return undefined;
  const { json, forcedTool, schemas } = contract;
  if (forcedTool) {
    const made = reply.toolCalls.map((c) => c.name);
    const wrong = forcedTool.names.length > 0 ? made.find((n) => !forcedTool.names.includes(n)) : undefined;
    if (made.length === 0 || wrong !== undefined)
      return violation(
        'structured-output',
        `${fixture} response.toolCalls`,
        made.length === 0
          ? `the request forces a tool call (${forcedTool.where}), but the fixture answers without one`
          : `the request forces ${forcedTool.names.join(' or ')} (${forcedTool.where}), but the fixture calls ${wrong}`,
      );
  }
  for (const [i, call] of reply.toolCalls.entries()) {
    const wanted = schemas.get(call.name);
    if (!wanted) continue;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return violation(
        'structured-output',
        `${fixture} response.toolCalls[${i}].arguments`,
        `the arguments of ${call.name} are not JSON, but ${wanted.why}`,
      );
    }
    const problem = valueProblem(wanted.schema, args);
    if (problem)
      return violation(
        'structured-output',
        `${fixture} response.toolCalls[${i}].arguments`,
        `the arguments of ${call.name} do not fit its parameters schema (${wanted.why}): ${problem}`,
      );
  }
  if (json && reply.toolCalls.length === 0) {
    let value: unknown;
    try {
      value = JSON.parse(reply.content ?? '');
    } catch {
      return violation(
        'structured-output',
        `${fixture} response.content`,
        `the request asks for JSON (${json.where}), but the fixture's content is not JSON: ${JSON.stringify((reply.content ?? '').slice(0, 60))}`,
      );
    }
    if (json.objectOnly && !isObject(value))
      return violation(
        'structured-output',
        `${fixture} response.content`,
        `the request asks for a JSON object (${json.where}), but the fixture's content is ${Array.isArray(value) ? 'an array' : typeof value}`,
      );
    const problem = valueProblem(json.schema, value);
    if (problem)
      return violation(
        'structured-output',
        `${fixture} response.content`,
        `the content does not fit the schema the request asks for (${json.where}): ${problem}`,
      );
  }
  return undefined;
}
