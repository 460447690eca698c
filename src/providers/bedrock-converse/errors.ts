import type { NeutralError } from '../../conversation';
import type { WireResponse } from '../codec';

/** Bedrock Runtime's exception names, by HTTP status. */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const BEDROCK_TYPES = new Set([
  ...Object.values(TYPE_BY_STATUS),
  'ModelNotReadyException',
  'ServiceQuotaExceededException',
]);

/** The exception name: the error's own when it is one of Bedrock's, else the one for its status. */
export function bedrockTypeOf(error: NeutralError): string {
  if (BEDROCK_TYPES.has(error.type)) return error.type;
  return (
    TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'InternalServerException' : 'ValidationException')
  );
}

export function validationError(message: string): NeutralError {
  return { status: 400, type: 'ValidationException', message };
}

/** FNV-1a, hex: a request id shaped like Bedrock's (a UUID) that stays the same for the same error. */
export function requestIdOf(seed: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < seed.length; i++) {
    h1 = Math.imul(h1 ^ seed.charCodeAt(i), 0x01000193);
    h2 = Math.imul(h2 ^ seed.charCodeAt(i), 0x5bd1e995);
  }
  const hex = (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
  const full = (hex + hex.split('').reverse().join('')).slice(0, 32);
  return `${full.slice(0, 8)}-${full.slice(8, 12)}-${full.slice(12, 16)}-${full.slice(16, 20)}-${full.slice(20)}`;
}

/**
 * Bedrock's error response: `{ "message": … }` with the exception named in `x-amzn-errortype`,
 * where the AWS SDK reads it. Throttling and 5xx carry `retry-after`, 0 unless the fixture says
 * otherwise (the SDK's standard retry honours it).
 */
export function encodeBedrockError(error: NeutralError): WireResponse {
  const type = bedrockTypeOf(error);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': requestIdOf(`${error.status}|${type}|${error.message}`),
  };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  else if (error.status === 429 || error.status >= 500) headers['retry-after'] = '0';
  return { status: error.status, headers, body: JSON.stringify({ message: error.message }) };
}
