/**
 * An operation as an MCP tool: its name, and its input and output schemas as MCP wants them
 * (self-contained objects: `#/definitions/<name>` references are inlined, since a client
 * compiles each schema on its own, and the root must be an object schema). Pure; the world
 * compiler checks with the same functions what the server will advertise.
 */
import type { JsonSchemaObject, OperationDef } from '../types';

/** MCP tool names: 1–128 ASCII letters, digits, `_`, `-` and `.` (the spec's advice, which SDKs check). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The tool name of an operation: its first `toolNames` entry, else its id with `.` as `_`. */
export function mcpToolName(op: OperationDef): string {
  return op.toolNames?.[0] ?? op.id.replace(/\./g, '_');
}

type Definitions = Record<string, JsonSchemaObject>;

const DEFINITIONS = '#/definitions/';

/** Keywords whose values are data, not schemas: never read as references. */
const DATA = new Set(['enum', 'const', 'default', 'examples']);

function decodePointer(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The definitions a schema sees: the world's, then its own (as the compiler merges them). */
export function definitionsFor(schema: unknown, shared: Definitions | undefined): Definitions {
  const own =
    schema && typeof schema === 'object' ? (schema as { definitions?: Definitions }).definitions : undefined;
  return { ...shared, ...own };
}

/**
 * The schema with every `#/definitions/<name>` reference replaced by the definition. A
 * recursive definition cannot be inlined: then its references stay and the definitions go
 * along as the root's `definitions`.
 */
export function inlineDefinitions(schema: JsonSchemaObject, definitions: Definitions): JsonSchemaObject {
  let cyclic = false;
  const visit = (node: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, stack));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    if (typeof $ref === 'string' && $ref.startsWith(DEFINITIONS)) {
      const name = decodePointer($ref.slice(DEFINITIONS.length));
      const target = definitions[name];
      if (target !== undefined && !stack.includes(name)) {
        const inlined = visit(target, [...stack, name]);
        const siblings = walk(rest, stack);
        return Object.keys(siblings).length === 0 ? inlined : { allOf: [inlined], ...siblings };
      }
      if (target !== undefined) cyclic = true;
    }
    return walk(node as Record<string, unknown>, stack);
  };
  const walk = (node: Record<string, unknown>, stack: readonly string[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'definitions') continue;
      out[key] = DATA.has(key) ? value : visit(value, stack);
    }
    return out;
  };
  const result = visit(schema, []) as JsonSchemaObject;
  return cyclic ? { ...result, definitions } : result;
}

/** The root of a schema once a `$ref` there is followed (what decides its type). */
function root(schema: unknown, definitions: Definitions): unknown {
  let node = schema;
  for (let hops = 0; hops < 32; hops++) {
    const ref = node && typeof node === 'object' ? (node as { $ref?: unknown }).$ref : undefined;
    if (typeof ref !== 'string' || !ref.startsWith(DEFINITIONS)) return node;
    node = definitions[decodePointer(ref.slice(DEFINITIONS.length))];
  }
  return node;
}

/** Whether a schema's root is an object schema (`type: "object"`, or no type at all). */
function objectRoot(schema: unknown, definitions: Definitions, typeRequired: boolean): boolean {
  const node = root(schema, definitions);
  if (node === true) return !typeRequired;
  if (node === null || typeof node !== 'object') return false;
  const type = (node as { type?: unknown }).type;
  return type === 'object' || (type === undefined && !typeRequired);
}

/**
 * Why an operation's input cannot be an MCP tool's arguments (always a JSON object), or
 * undefined when it can.
 */
export function inputProblem(input: unknown, shared: Definitions | undefined): string | undefined {
  if (input === undefined || objectRoot(input, definitionsFor(input, shared), false)) return undefined;
  return 'MCP tool arguments are a JSON object, so the input schema must be an object schema ("type": "object")';
}

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
}

export interface ToolOptions {
  /** The world's shared `definitions`. */
  definitions: Definitions | undefined;
  /** The argument that carries the idempotency key (mcp.idempotencyKey). */
  idempotencyKey?: string;
}

const KEY_DESCRIPTION =
  "Idempotency key: a repeated key with the same arguments returns the first call's result without running again.";

/** The tool an operation is served as. The output schema is given only for an object output. */
export function toolOf(op: OperationDef, options: ToolOptions): McpTool {
  const input = op.input === undefined || (op.input as unknown) === true ? { type: 'object' } : op.input;
  const inputDefinitions = definitionsFor(input, options.definitions);
  const inputSchema = inlineDefinitions(root(input, inputDefinitions) as JsonSchemaObject, inputDefinitions);
  inputSchema.type = 'object';
  const key = options.idempotencyKey;
  if (key !== undefined) {
    inputSchema.properties = {
      ...(inputSchema.properties as Record<string, unknown> | undefined),
      [key]: { type: 'string', description: KEY_DESCRIPTION },
    };
  }
  const tool: McpTool = { name: mcpToolName(op), inputSchema };
  if (op.description !== undefined) tool.description = op.description;
  const outputDefinitions = definitionsFor(op.output, options.definitions);
  if (op.output !== undefined && objectRoot(op.output, outputDefinitions, true)) {
    tool.outputSchema = inlineDefinitions(
      root(op.output, outputDefinitions) as JsonSchemaObject,
      outputDefinitions,
    );
  }
  return tool;
}
