/**
 * Tool names and parameter schemas, checked against each API's limits with each API's own
 * words for the failure. Only what the APIs are known to reject is flagged: a schema a
 * provider would take stays accepted.
 */
import type { NeutralError } from '../conversation';
import { schemaProblem } from './json-schema';

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A problem found: the provider's error and our own account of it. */
export interface ToolProblem {
  at: string;
  problem: string;
  error: NeutralError;
}

const openai = (message: string, param: string, code: string): NeutralError => ({
  status: 400,
  type: 'invalid_request_error',
  message,
  param,
  code,
});

/** The object schemas inside `schema`, each with the path of keys that leads to it. */
function* objectSchemas(schema: unknown, path: string[] = []): Generator<[Record<string, any>, string[]]> {
  if (!isObject(schema)) return;
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(schema.properties))
    yield [schema, path];
  if (isObject(schema.properties))
    for (const [k, v] of Object.entries(schema.properties))
      yield* objectSchemas(v, [...path, 'properties', k]);
  if (schema.items !== undefined) yield* objectSchemas(schema.items, [...path, 'items']);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[key]))
      for (const [i, v] of schema[key].entries()) yield* objectSchemas(v, [...path, key, String(i)]);
  for (const key of ['$defs', 'definitions'])
    if (isObject(schema[key]))
      for (const [k, v] of Object.entries(schema[key])) yield* objectSchemas(v, [...path, key, k]);
}

const context = (path: string[]) => `In context=(${path.map((p) => `'${p}'`).join(', ')})`;

/** Structured Outputs' rules for a strict schema: closed objects, every property required. */
function strictProblem(schema: unknown): string | undefined {
  for (const [object, path] of objectSchemas(schema)) {
    if (object.additionalProperties !== false)
      return `${context(path)}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = isObject(object.properties) ? Object.keys(object.properties) : [];
    const required = Array.isArray(object.required) ? object.required : [];
    const missing = keys.filter((k) => !required.includes(k));
    if (!Array.isArray(object.required) || missing.length > 0)
      return `${context(path)}, 'required' is required to be supplied and to be an array including every key in properties.${missing.length > 0 ? ` Missing '${missing[0]}'.` : ''}`;
  }
  return undefined;
}

const OPENAI_NAME = /^[a-zA-Z0-9_-]+$/;
const OPENAI_MAX_TOOLS = 128;

/**
 * OpenAI function tools, Chat (`tools[i].function`) or Responses (`tools[i]`): at most 128,
 * names of `[a-zA-Z0-9_-]` up to 64 characters, object parameter schemas that are valid JSON
 * Schema, and Structured Outputs' rules when `strict: true`.
 */
export function openaiToolProblem(tools: unknown, chat: boolean): ToolProblem | undefined {
  if (!Array.isArray(tools)) return undefined;
  if (tools.length > OPENAI_MAX_TOOLS)
    return {
      at: 'tools',
      problem: `${tools.length} tools; the API takes at most ${OPENAI_MAX_TOOLS}`,
      error: openai(
        `Invalid 'tools': array too long. Expected an array with maximum length ${OPENAI_MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
        'tools',
        'array_above_max_length',
      ),
    };
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool) || tool.type !== 'function') continue;
    const fn = chat ? tool.function : tool;
    if (!isObject(fn) || typeof fn.name !== 'string') continue;
    const base = chat ? `tools[${i}].function` : `tools[${i}]`;
    const name = fn.name;
    if (!OPENAI_NAME.test(name))
      return {
        at: `${base}.name`,
        problem: `the tool name ${JSON.stringify(name)} has characters outside [a-zA-Z0-9_-]`,
        error: openai(
          `Invalid '${base}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `${base}.name`,
          'invalid_value',
        ),
      };
    if (name.length > 64)
      return {
        at: `${base}.name`,
        problem: `the tool name ${JSON.stringify(name)} is ${name.length} characters long; the API takes at most 64`,
        error: openai(
          `Invalid '${base}.name': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
          `${base}.name`,
          'string_above_max_length',
        ),
      };
    const params = fn.parameters;
    if (params === undefined || params === null) continue;
    const invalid = (detail: string, problem: string): ToolProblem => ({
      at: `${base}.parameters`,
      problem,
      error: openai(
        `Invalid schema for function '${name}': ${detail}`,
        `${base}.parameters`,
        'invalid_function_parameters',
      ),
    });
    const type = isObject(params) ? params.type : undefined;
    if (type !== undefined && type !== 'object')
      return invalid(
        `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(type)}"'.`,
        `the parameters of ${name} are not an object schema (type ${JSON.stringify(type)})`,
      );
    const meta = schemaProblem(params);
    if (meta) return invalid(`${meta}.`, `the parameters of ${name} are not a valid JSON Schema: ${meta}`);
    if (fn.strict === true) {
      const strict = strictProblem(params);
      if (strict)
        return invalid(strict, `the strict parameters of ${name} break Structured Outputs: ${strict}`);
    }
  }
  return undefined;
}

const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** Anthropic custom tools: names of `[a-zA-Z0-9_-]{1,128}`, an object `input_schema` that is valid JSON Schema. */
export function anthropicToolProblem(tools: unknown): ToolProblem | undefined {
  if (!Array.isArray(tools)) return undefined;
  const invalid = (message: string, at: string, problem: string): ToolProblem => ({
    at,
    problem,
    error: { status: 400, type: 'invalid_request_error', message },
  });
  for (const [i, tool] of tools.entries()) {
    // Server tools (web_search, bash…) have a `type` and no input_schema.
    if (!isObject(tool) || tool.input_schema === undefined) continue;
    if (tool.type !== undefined && tool.type !== 'custom') continue;
    const at = `tools.${i}.custom`;
    if (typeof tool.name !== 'string' || !ANTHROPIC_NAME.test(tool.name))
      return invalid(
        `${at}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`,
        `tools[${i}].name`,
        `the tool name ${JSON.stringify(tool.name)} does not match ^[a-zA-Z0-9_-]{1,128}$`,
      );
    const schema = tool.input_schema;
    if (!isObject(schema) || schema.type !== 'object')
      return invalid(
        `${at}.input_schema.type: Input should be 'object'`,
        `tools[${i}].input_schema`,
        `the input_schema of ${tool.name} is not an object schema`,
      );
    const meta = schemaProblem(schema);
    if (meta)
      return invalid(
        `${at}.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.`,
        `tools[${i}].input_schema`,
        `the input_schema of ${tool.name} is not a valid JSON Schema: ${meta}`,
      );
  }
  return undefined;
}

const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** The fields of Gemini's OpenAPI-style `Schema` message (both spellings the REST API reads). */
const GEMINI_SCHEMA_FIELDS = new Set(
  [
    'type',
    'format',
    'title',
    'description',
    'nullable',
    'enum',
    'maxItems',
    'minItems',
    'properties',
    'required',
    'minProperties',
    'maxProperties',
    'minLength',
    'maxLength',
    'pattern',
    'example',
    'anyOf',
    'propertyOrdering',
    'default',
    'items',
    'minimum',
    'maximum',
  ].flatMap((f) => [f, f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]),
);

/** The first field `parameters` has that the `Schema` message lacks, with the API's path to it. */
function geminiSchemaField(schema: unknown, at: string): { field: string; at: string } | undefined {
  if (!isObject(schema)) return undefined;
  for (const key of Object.keys(schema)) if (!GEMINI_SCHEMA_FIELDS.has(key)) return { field: key, at };
  if (isObject(schema.properties)) {
    const entries = Object.values(schema.properties);
    for (let k = 0; k < entries.length; k++) {
      const found = geminiSchemaField(entries[k], `${at}.properties[${k}].value`);
      if (found) return found;
    }
  }
  const items = schema.items;
  if (items !== undefined) {
    const found = geminiSchemaField(items, `${at}.items`);
    if (found) return found;
  }
  const anyOf = schema.anyOf ?? schema.any_of;
  if (Array.isArray(anyOf))
    for (let k = 0; k < anyOf.length; k++) {
      const found = geminiSchemaField(anyOf[k], `${at}.any_of[${k}]`);
      if (found) return found;
    }
  return undefined;
}

const field = (obj: Record<string, any>, camel: string, snake: string) => obj[camel] ?? obj[snake];

/**
 * Gemini function declarations: names that start with a letter or `_`, of `[a-zA-Z0-9_.:-]`
 * up to 64 characters; `parameters` holds only the fields of the API's `Schema` (JSON Schema
 * extras like `additionalProperties` belong in `parametersJsonSchema`).
 */
export function geminiToolProblem(tools: unknown): ToolProblem | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) continue;
    const decls = field(tool, 'functionDeclarations', 'function_declarations');
    if (!Array.isArray(decls)) continue;
    for (const [j, d] of decls.entries()) {
      if (!isObject(d)) continue;
      const path = `tools[${i}].function_declarations[${j}]`;
      if (typeof d.name === 'string' && d.name !== '' && !GEMINI_NAME.test(d.name))
        return {
          at: `${path}.name`,
          problem: `the function name ${JSON.stringify(d.name)} is not one Gemini accepts`,
          error: {
            status: 400,
            type: 'INVALID_ARGUMENT',
            message: `* GenerateContentRequest.${path}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
          },
        };
      const unknown = geminiSchemaField(d.parameters, `${path}.parameters`);
      if (unknown)
        return {
          at: `${path}.parameters`,
          problem: `the parameters of ${String(d.name)} use ${JSON.stringify(unknown.field)}, which Gemini's Schema does not have (put JSON Schema in parametersJsonSchema)`,
          error: {
            status: 400,
            type: 'INVALID_ARGUMENT',
            message: `Invalid JSON payload received. Unknown name "${unknown.field}" at '${unknown.at}': Cannot find field.`,
          },
        };
    }
  }
  return undefined;
}
