/**
 * A session runs one test body several times (a fault sweep, a provider matrix) on the file's
 * runtime. While it is active, every run that ends is handed to it, runs that end badly are
 * watched by its own `OutcomeWatch` when it has one (a fault that breaks the agent is the
 * sweep's finding, not the test's failure), and every call that reaches a world operation or
 * a tool fake may be answered with a fault instead.
 */
import { UnderstudyError } from '../errors';
import type { OutcomeWatch } from './outcomes';
import type { Run } from './types';

/** A call as it reaches a world operation or a tool fake. */
export interface ToolCallPoint {
  packageId: string;
  operationId: string;
  input: unknown;
  /** The error codes the operation (or the fake's method) declares, in order. */
  declared: readonly string[];
  /** 'direct', 'http', 'mcp', 'fake'… */
  transport: string;
}

/** A fault to answer a call with: one of its declared errors, or a timeout. */
export type InjectedFault = { kind: 'error'; code: string } | { kind: 'timeout'; ms: number };

export interface RunSession {
  /** Watches the session's runs instead of the test's watch. */
  readonly outcomes?: OutcomeWatch;
  /** A run made in the session ended; a string returned labels its kind in the evidence. */
  runEnded?(run: Run<any, any>): string | undefined;
  /** A call reached a world operation or a tool fake: the fault to answer it with, if any. */
  toolCall?(point: ToolCallPoint): InjectedFault | undefined;
}

/** What a session needs of the file's context: a place for it. */
export interface SessionDeps {
  session: RunSession | undefined;
}

/** Runs `body` with `session` active on `deps`; sessions do not nest. */
export async function withSession<T>(
  deps: SessionDeps,
  session: RunSession,
  where: string,
  body: () => Promise<T>,
): Promise<T> {
  if (deps.session !== undefined)
    throw new UnderstudyError(
      'BAD_ARGUMENT',
      `${where}: another sweep or acrossProviders is running in this test file; await it first (they do not nest)`,
    );
  deps.session = session;
  try {
    return await body();
  } finally {
    deps.session = undefined;
  }
}
