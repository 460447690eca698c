import type { NeutralError } from '../../conversation';
import type { WireResponse } from '../codec';

/** google.rpc.Code names by HTTP status, as the Gemini API reports them in `error.status`. */
const STATUS_BY_HTTP: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const GOOGLE_STATUSES = new Set([
  ...Object.values(STATUS_BY_HTTP),
  'FAILED_PRECONDITION',
  'OUT_OF_RANGE',
  'ALREADY_EXISTS',
  'UNKNOWN',
  'DATA_LOSS',
]);

/** The status string: the error's own type when it already is a Google status name, else from the HTTP code. */
export function googleStatusOf(error: NeutralError): string {
  if (GOOGLE_STATUSES.has(error.type)) return error.type;
  if (error.code !== undefined && GOOGLE_STATUSES.has(error.code)) return error.code;
  return STATUS_BY_HTTP[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'UNKNOWN');
}

/** A 400 the way the API words field errors: `* GenerateContentRequest.<field>: <what is wrong>`. */
export function invalidArgument(field: string, problem: string): NeutralError {
  return {
    status: 400,
    type: 'INVALID_ARGUMENT',
    message: `* GenerateContentRequest.${field}: ${problem}\n`,
  };
}

/**
 * Gemini's error envelope `{ error: { code, message, status } }`. Retryable statuses carry
 * `retry-after` (0 unless the fixture says otherwise) so a client's own retry runs without
 * a wall-clock wait; a 429 also carries the `google.rpc.RetryInfo` detail the API sends.
 */
export function encodeGeminiError(error: NeutralError): WireResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
  const retryable = error.status === 429 || error.status >= 500;
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  else if (retryable) headers['retry-after'] = '0';
  const body: { error: Record<string, unknown> } = {
    error: { code: error.status, message: error.message, status: googleStatusOf(error) },
  };
  if (error.status === 429) {
    body.error.details = [
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfter ?? 0}s` },
    ];
  }
  return { status: error.status, headers, body: JSON.stringify(body) };
}
