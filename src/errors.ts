/** Every failure the package reports carries a stable code; messages are for people. */
export type ErrorCode =
  | 'ENVIRONMENT_MISSING'
  | 'MODEL_UNMATCHED'
  | 'ENDPOINT_UNSUPPORTED'
  | 'UNHANDLED_REQUEST'
  | 'BAD_ARGUMENT'
  | 'HARNESS_CLOSED'
  | 'RUN_TIMEOUT'
  // recording (record / record-missing / live modes, cassettes)
  | 'RECORD_AMBIGUOUS'
  | 'RECORD_REFUSED'
  | 'RECORD_KEY_MISSING'
  | 'RECORD_INCOMPLETE'
  | 'RECORDER_FAILED'
  | 'CASSETTE_LEAK'
  | 'CASSETTE_STALE';

export class UnderstudyError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'UnderstudyError';
    this.code = code;
  }
}

/** Names the argument and what was expected, for bad input at a public entry point. */
export function badArgument(where: string, expected: string, received: unknown): UnderstudyError {
  const got = received === null ? 'null' : Array.isArray(received) ? 'an array' : typeof received;
  return new UnderstudyError('BAD_ARGUMENT', `${where}: expected ${expected}, received ${got}`);
}
