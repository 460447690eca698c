/**
 * The package's one error model: every failure it reports carries a stable `code` from the
 * table in ./codes.ts (messages are for people). Inside modules failures are values; an
 * `UnderstudyError` (or a subclass) is thrown only at a public boundary.
 */
import type { ErrorCode } from './codes';

export { ERROR_AREAS, ERROR_CODES, type ErrorArea, type ErrorCode, type ErrorCodeInfo } from './codes';

/**
 * Marks the package's errors in a way every realm sees: the environment (Jest's host realm)
 * and the test file (its sandbox) each load their own copy of this module, so `instanceof`
 * fails across them; a registered symbol is the same everywhere.
 */
const MARKER = Symbol.for('jest-understudy.error');

export class UnderstudyError<Code extends ErrorCode = ErrorCode> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    // The first line of the stack names the code, as Node's own errors do (`TypeError [ERR_…]: …`),
    // so a failure printed anywhere points at its entry in docs/errors.md.
    this.name = `${new.target.name} [${code}]`;
    void this.stack;
    this.name = 'UnderstudyError';
  }
}
Object.defineProperty(UnderstudyError.prototype, MARKER, { value: true });

/**
 * Whether `value` is an error of jest-understudy (from any realm, any copy of the package),
 * optionally with the given code.
 */
export function isUnderstudyError(value: unknown, code?: ErrorCode): value is UnderstudyError {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[MARKER] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}

/**
 * Gives an error that must keep its own class (a `TypeError` as `fetch` would throw) a code
 * and the marker, so `isUnderstudyError` knows it.
 */
export function markError<E extends Error>(error: E, code: ErrorCode): E & { code: ErrorCode } {
  Object.defineProperty(error, MARKER, { value: true });
  return Object.assign(error, { code });
}

/** Names the argument and what was expected, for bad input at a public entry point. */
export function badArgument(where: string, expected: string, received: unknown): UnderstudyError {
  const got = received === null ? 'null' : Array.isArray(received) ? 'an array' : typeof received;
  return new UnderstudyError('BAD_ARGUMENT', `${where}: expected ${expected}, received ${got}`);
}
