/**
 * What goes wrong with worlds. Inside the engine failures are values (an envelope with a
 * code); these classes exist only at the public boundaries: a bad world file
 * (`WorldFileError`), a misused API (`WorldError`) and a failed tool call through
 * `mockTool` (`ToolMockError`). This module is loaded in the test realm, so `instanceof`
 * works in tests.
 */
import { type ErrorCode, UnderstudyError } from '../errors';
import { type FileIssue, FileIssuesError, filesSubject } from '../file-format/issue';
import type { OperationRef, ToolErrorEnvelope } from './types';

/** WORLD_INVALID, WORLD_PARSE_ERROR, WORLD_UNSUPPORTED_EXTENSION, WORLD_READ_ERROR, WORLD_REFERENCE, WORLD_MODULE_ERROR (see src/errors/codes.ts). */
export type WorldIssueCode = Extract<
  ErrorCode,
  | 'WORLD_INVALID'
  | 'WORLD_PARSE_ERROR'
  | 'WORLD_UNSUPPORTED_EXTENSION'
  | 'WORLD_READ_ERROR'
  | 'WORLD_REFERENCE'
  | 'WORLD_MODULE_ERROR'
>;

export interface WorldIssue extends FileIssue<WorldIssueCode> {}

export class WorldFileError extends FileIssuesError<WorldIssueCode> {
  override readonly name = 'WorldFileError';

  /** `subject` names what was read: "World file /app/x.world.yaml", "runDrills({ setup })". */
  constructor(issues: readonly WorldIssue[], subject?: string) {
    super(issues, { subject: subject ?? filesSubject('World file'), code: 'WORLD_INVALID' });
  }
}

export type WorldErrorCode = Extract<
  ErrorCode,
  | 'WORLD_MISSING'
  | 'UNKNOWN_PACKAGE'
  | 'UNKNOWN_OPERATION'
  | 'BINDING_UNSUPPORTED'
  | 'UNKNOWN_DRILL'
  | 'DRILL_OVERLAP'
  | 'BUILD_MISMATCH'
  | 'MOCKTOOL_INPUT'
  | 'MOCKTOOL_ERROR'
  | 'BAD_ARGUMENT'
>;

/** A world API used wrongly (unknown operation, no world loaded, overlapping drills…). */
export class WorldError extends UnderstudyError<WorldErrorCode> {
  override readonly name = 'WorldError';
}

/**
 * The codes the engine itself fails with, besides the ones operations declare. They
 * are part of every operation's contract: an agent may meet any of them.
 */
export const ENGINE_ERRORS = {
  PERMISSION_DENIED: { status: 403, retryable: false },
  INVALID_INPUT: { status: 400, retryable: false },
  BUDGET_EXCEEDED: { status: 429, retryable: false },
  IDEMPOTENCY_CONFLICT: { status: 409, retryable: false },
  TIMEOUT: { status: 504, retryable: true },
  /** The behavior returned a value its output schema rejects (a defect: fails the test). */
  INVALID_OUTPUT: { status: 500, retryable: false },
  /** The behavior threw, or failed with an undeclared code (a defect: fails the test). */
  BEHAVIOR_ERROR: { status: 500, retryable: false },
  /** The binding of a retained mockTool callable expired. */
  BINDING_EXPIRED: { status: 410, retryable: false },
} as const;

export type EngineErrorCode = keyof typeof ENGINE_ERRORS;

export function engineError(code: EngineErrorCode, message: string, details?: unknown): ToolErrorEnvelope {
  const { status, retryable } = ENGINE_ERRORS[code];
  return { code, message, retryable, status, ...(details !== undefined && { details }) };
}

/**
 * What a `mockTool` callable throws or rejects with when its operation fails: the
 * envelope (as HTTP clients would get it in the body) plus its status and code.
 */
export class ToolMockError extends Error {
  override readonly name = 'ToolMockError';
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  readonly envelope: ToolErrorEnvelope;
  readonly operation: OperationRef;
  /** The operation's `seq` in the evidence log (absent when no operation ran). */
  readonly seq: number | undefined;

  constructor(envelope: ToolErrorEnvelope, operation: OperationRef, seq?: number) {
    // An error declared without a message carries its code as the message: say it once.
    const said = envelope.message === envelope.code || envelope.message === '' ? '' : `: ${envelope.message}`;
    super(`${operation.packageId}/${operation.operationId} failed with ${envelope.code}${said}`);
    this.envelope = envelope;
    this.code = envelope.code;
    this.status = envelope.status;
    this.retryable = envelope.retryable;
    this.operation = operation;
    this.seq = seq;
  }
}
