/**
 * The code on the first line of a failure Vitest prints. Jest prints an error's stack, whose first
 * line names the code (`UnderstudyError [MODEL_UNMATCHED]: …`, ../failures.ts); Vitest prints
 * `${error.name}: ${error.message}` and the frames apart, so there the name carries the code, as
 * Node's own errors' first line does (`TypeError [ERR_…]: …`).
 */
import { ERROR_CODES } from '../../src/errors';

/**
 * Puts the error's code in its name when the code is one of jest-understudy's (its own errors, a
 * marked `TypeError`, as Vitest serialised them or as thrown); anything else is left alone.
 */
export function withCodeInName<T>(value: T): T {
  const error = value as { name?: unknown; code?: unknown } | null;
  if (typeof error !== 'object' || error === null) return value;
  const { code, name } = error;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_CODES, code)) return value;
  if (typeof name !== 'string' || name.endsWith(`[${code}]`)) return value;
  try {
    error.name = `${name} [${code}]`;
  } catch {
    // frozen or otherwise read-only: printed without its code, as before
  }
  return value;
}
