import type { NeutralError } from '../../conversation';
import type { WireResponse } from '../codec';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'server_error',
};

export function openaiError(status: number, message: string, param?: string): NeutralError {
  return {
    status,
    type: TYPE_BY_STATUS[status] ?? 'api_error',
    message,
    ...(param ? { param } : {}),
  };
}

/**
 * OpenAI's error envelope. Retryable statuses carry `retry-after` (0 unless the fixture
 * says otherwise), so the SDK's own retry logic runs without waiting in wall-clock time.
 */
export function encodeOpenAIError(error: NeutralError): WireResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  else if (error.status === 429 || error.status >= 500) headers['retry-after'] = '0';
  const body = {
    error: {
      message: error.message,
      type: error.type,
      param: error.param ?? null,
      code: error.code ?? (error.status === 429 ? 'rate_limit_exceeded' : null),
      ...(error.metadata !== undefined ? { metadata: error.metadata } : {}),
    },
  };
  return { status: error.status, headers, body: JSON.stringify(body) };
}
