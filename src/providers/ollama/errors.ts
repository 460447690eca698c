import type { NeutralError } from '../../conversation';
import type { WireResponse } from '../codec';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
};

export function ollamaError(status: number, message: string, param?: string): NeutralError {
  return { status, type: TYPE_BY_STATUS[status] ?? 'api_error', message, ...(param ? { param } : {}) };
}

/** Ollama's error body is one field, `{"error": "..."}`, with the HTTP status. */
export function encodeOllamaError(error: NeutralError): WireResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  return { status: error.status, headers, body: JSON.stringify({ error: error.message }) };
}

/** The "no such model" answer the server gives a model it has not pulled. */
export function modelNotFound(model: string): NeutralError {
  return ollamaError(404, `model "${model}" not found, try pulling it first`);
}
