/**
 * The JSON-RPC 2.0 messages MCP speaks, the protocol versions the server negotiates (those of
 * `@modelcontextprotocol/sdk` 1.x, newest first) and the error codes it answers with.
 */

export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  LATEST_PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];

/** The version an initialize gets: the client's when supported, else the latest (the client decides). */
export function negotiate(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Server-defined: what the Streamable HTTP transport refuses (headers, sessions). */
  TRANSPORT: -32000,
  SESSION_NOT_FOUND: -32001,
  RESOURCE_NOT_FOUND: -32002,
} as const;

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Params;
}

export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: RequestId;
  result: Params;
}

export interface JsonRpcError {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export type JsonRpcResponse = JsonRpcResult | JsonRpcError;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

const isId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The message, when `value` is one JSON-RPC 2.0 message; undefined otherwise. */
export function parseMessage(value: unknown): JsonRpcMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if ('method' in value) {
    if (typeof value.method !== 'string' || (value.params !== undefined && !isObject(value.params)))
      return undefined;
    if ('id' in value && !isId(value.id)) return undefined;
    return value as unknown as JsonRpcRequest | JsonRpcNotification;
  }
  if ('result' in value) return isId(value.id) && isObject(value.result) ? (value as never) : undefined;
  if ('error' in value) {
    const error = value.error;
    return isObject(error) && typeof error.code === 'number' && (value.id === null || isId(value.id))
      ? (value as never)
      : undefined;
  }
  return undefined;
}

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

export function result(id: RequestId, value: Params): JsonRpcResult {
  return { jsonrpc: '2.0', id, result: value };
}

export function rpcError(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } };
}

/** The answer to a request whose handling threw: an internal error rather than no answer. */
export function internalError(message: JsonRpcMessage, error: unknown): JsonRpcResponse {
  return rpcError(
    'id' in message ? message.id : null,
    RPC.INTERNAL_ERROR,
    error instanceof Error ? error.message : String(error),
  );
}
