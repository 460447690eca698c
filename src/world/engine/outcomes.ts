/** Outcomes and error envelopes the engine answers with. */
import { closest } from '../dialect';
import { ENGINE_ERRORS, type EngineErrorCode, engineError } from '../errors';
import type { CompiledOperation } from '../model';
import type { OperationOutcome, ToolErrorEnvelope } from '../types';
import { cloneJson } from '../values';
import type { EngineCore } from './state';

export function fail(error: ToolErrorEnvelope): OperationOutcome {
  return { kind: 'error', error };
}

/** A defect of the world itself (a behavior threw, returned invalid output…): the host fails the test. */
export function defect(
  core: EngineCore,
  message: string,
  code: EngineErrorCode = 'BEHAVIOR_ERROR',
): OperationOutcome {
  core.hooks.onDefect?.(`World defect: ${message}`, code);
  return fail(engineError(code, message));
}

/** A declared error's envelope (engine codes are always declared). */
export function declared(
  op: CompiledOperation,
  code: string,
  message?: string,
  retryable?: boolean,
  details?: unknown,
): ToolErrorEnvelope {
  const declared = op.errors.get(code);
  if (!declared) {
    // Only engine codes get here (the loader refuses undeclared codes in files).
    const known = Object.hasOwn(ENGINE_ERRORS, code) ? (code as EngineErrorCode) : 'BEHAVIOR_ERROR';
    return engineError(known, message ?? code, details);
  }
  return {
    code,
    message: message ?? declared.message ?? code,
    retryable: retryable ?? declared.retryable ?? false,
    status: declared.status,
    ...(details !== undefined && { details: cloneJson(details) }),
    ...(declared.retryAfter !== undefined && { retryAfter: declared.retryAfter }),
  };
}

export function hint(name: string, candidates: Iterable<string>): string {
  const all = [...candidates];
  const meant = closest(name, all);
  if (meant) return ` (did you mean ${JSON.stringify(meant)}?)`;
  return all.length > 0 ? ` (it has ${all.map((c) => JSON.stringify(c)).join(', ')})` : '';
}

export const isThenable = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
