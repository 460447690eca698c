import type { NeutralError } from '../../conversation';
import type { WireResponse } from '../codec';

/** Anthropic's error types, by HTTP status (https://docs.anthropic.com/en/api/errors). */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ANTHROPIC_TYPES = new Set([...Object.values(TYPE_BY_STATUS), 'api_error']);

/**
 * The error type on the wire: a fixture's own Anthropic type wins (except the generic
 * `api_error`, which the neutral model uses as a default), else the type the API uses for
 * that status. OpenAI-flavoured types (`rate_limit_exceeded`, `server_error`) become
 * Anthropic ones.
 */
function typeOf(error: NeutralError): string {
  if (ANTHROPIC_TYPES.has(error.type) && error.type !== 'api_error') return error.type;
  return TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** A 400 as the API words it for a request body it rejects, e.g. `max_tokens: Field required`. */
export function anthropicError(status: number, message: string, code?: string): NeutralError {
  return {
    status,
    type: TYPE_BY_STATUS[status] ?? 'api_error',
    message,
    ...(code !== undefined ? { code } : {}),
  };
}

/** FNV-1a, base36: a stable request id for an error, which has no call index. */
function requestIdOf(error: NeutralError): string {
  let h = 0x811c9dc5;
  const text = `${error.status}|${error.type}|${error.message}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return `req_understudy${(h >>> 0).toString(36).padStart(7, '0')}`;
}

/**
 * Anthropic's error envelope: `{ type: 'error', error: { type, message, details? }, request_id }`
 * with the `request-id` header. A `code` travels as `details.error_code`, where the SDK reads
 * it (e.g. `thread_not_found`). Retryable statuses (429, 5xx, 529) carry `retry-after`, 0
 * unless the fixture says otherwise, so the SDK's own retries run.
 */
export function encodeAnthropicError(error: NeutralError): WireResponse {
  const requestId = requestIdOf(error);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  else if (error.status === 429 || error.status >= 500) headers['retry-after'] = '0';
  const body = {
    type: 'error',
    error: {
      type: typeOf(error),
      message: error.message,
      ...(error.code !== undefined ? { details: { error_code: error.code } } : {}),
    },
    request_id: requestId,
  };
  return { status: error.status, headers, body: JSON.stringify(body) };
}
