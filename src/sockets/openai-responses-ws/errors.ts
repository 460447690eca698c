/**
 * WebSocket mode's `error` event: a turn that fails before its stream starts (the HTTP status and
 * the API's error object) comes back as one message, and the socket stays open.
 */
export interface ErrorEvent {
  type: 'error';
  status: number;
  error: { type: string; code: string | null; message: string; param: string | null };
}

export function turnError(
  status: number,
  type: string,
  message: string,
  param: string | null = null,
): ErrorEvent {
  return { type: 'error', status, error: { type, code: null, message, param } };
}

/** The `error` event of an HTTP error response (the OpenAI error envelope, else its text). */
export async function errorEvent(response: Response): Promise<ErrorEvent> {
  const text = await response.text().catch(() => '');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = body?.error;
  if (error && typeof error === 'object')
    return {
      type: 'error',
      status: response.status,
      error: {
        type: typeof error.type === 'string' ? error.type : 'invalid_request_error',
        code: typeof error.code === 'string' ? error.code : null,
        message: typeof error.message === 'string' ? error.message : text,
        param: typeof error.param === 'string' ? error.param : null,
      },
    };
  return turnError(
    response.status,
    'api_error',
    text.trim() === '' ? `HTTP ${response.status}` : text.slice(0, 500),
  );
}
