/**
 * What goes wrong with worlds. Inside the engine failures are values (an envelope with a
 * code); these classes exist only at the public boundaries: a bad world file
 * (`WorldFileError`), a misused API (`WorldError`) and a failed tool call through
 * `mockTool` (`ToolMockError`). This module is loaded in the test realm, so `instanceof`
 * works in tests.
 */
import { type FileIssue, formatIssue } from '../fixtures/errors';
import type { OperationRef, ToolErrorEnvelope } from './types';

export type WorldIssueCode =
  /** The file parsed but does not follow the world schema. */
  | 'WORLD_INVALID'
  /** The file is not valid JSON / YAML. */
  | 'WORLD_PARSE_ERROR'
  /** The file name does not end in .json, .yaml or .yml. */
  | 'WORLD_UNSUPPORTED_EXTENSION'
  /** The file could not be read. */
  | 'WORLD_READ_ERROR'
  /** A name that refers to nothing: an unknown package, operation, error code, scenario, actor… */
  | 'WORLD_REFERENCE'
  /** A behavior module that does not exist, does not load, or lacks the handler. */
  | 'WORLD_MODULE_ERROR';

export interface WorldIssue extends FileIssue<WorldIssueCode> {}

export class WorldFileError extends Error {
  override readonly name = 'WorldFileError';
  readonly code: WorldIssueCode;
  readonly file: string;
  readonly issues: readonly WorldIssue[];

  /** `subject` names what was read: "World file /app/x.world.yaml", "runDrills({ setup })". */
  constructor(issues: readonly WorldIssue[], subject?: string) {
    if (issues.length === 0) throw new TypeError('WorldFileError needs at least one issue');
    const files = [...new Set(issues.map((issue) => issue.file))];
    const count = issues.length === 1 ? 'a problem' : `${issues.length} problems`;
    const what =
      subject ?? (files.length === 1 ? `World file ${files[0]}` : `World files ${files.join(', ')}`);
    super(`${what}: ${count}\n${issues.map((issue) => `  ${formatIssue(issue)}`).join('\n')}`);
    const codes = new Set(issues.map((issue) => issue.code));
    this.code = codes.size === 1 ? issues[0].code : 'WORLD_INVALID';
    this.file = issues[0].file;
    this.issues = issues;
  }
}

export type WorldErrorCode =
  | 'WORLD_MISSING'
  | 'UNKNOWN_PACKAGE'
  | 'UNKNOWN_OPERATION'
  | 'BINDING_UNSUPPORTED'
  | 'UNKNOWN_DRILL'
  | 'DRILL_OVERLAP'
  | 'BUILD_MISMATCH'
  | 'MOCKTOOL_INPUT'
  | 'BAD_ARGUMENT';

/** A world API used wrongly (unknown operation, no world loaded, overlapping drills…). */
export class WorldError extends Error {
  override readonly name = 'WorldError';
  constructor(
    readonly code: WorldErrorCode,
    message: string,
  ) {
    super(message);
  }
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
    super(
      `${operation.packageId}/${operation.operationId} failed with ${envelope.code}: ${envelope.message}`,
    );
    this.envelope = envelope;
    this.code = envelope.code;
    this.status = envelope.status;
    this.retryable = envelope.retryable;
    this.operation = operation;
    this.seq = seq;
  }
}
