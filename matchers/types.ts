import type { TerminalState, ToolCall } from '../src/run/types';

/**
 * How the expected steps relate to the calls the run made.
 * - `exact`: same length, same order.
 * - `ordered`: expected is a subsequence of the calls (other calls may come between).
 * - `unordered`: same calls as a multiset, in any order, nothing extra.
 * - `subset`: every expected step was called, in any order; extra calls allowed.
 * - `superset`: every call is among the expected steps; expected steps may be missing.
 */
export type TrajectoryMode = 'exact' | 'ordered' | 'unordered' | 'subset' | 'superset';

/**
 * How an expected step's `args` are compared with a call's arguments.
 * - `subset`: expected args are a deep subset of the call's (objects recursively;
 *   arrays need the same length, each element compared with subset semantics).
 * - `exact`: deep equality (`toEqual` semantics).
 * - `ignore`: names only.
 * - `superset`: the call's arguments are a deep subset of the expected args.
 * A step without `args` matches any arguments in every mode.
 */
export type ArgsMode = 'subset' | 'exact' | 'ignore' | 'superset';

export interface TrajectoryOptions {
  mode?: TrajectoryMode;
  args?: ArgsMode;
}

/** An `expect.any(...)`, `expect.stringMatching(...)`, … value. */
export interface AsymmetricMatcherLike {
  asymmetricMatch(other: unknown): boolean;
}

export type ExpectedArgs = Record<string, unknown> | AsymmetricMatcherLike;

export type ExpectedToolCall = string | { name: string; args?: ExpectedArgs };

/** What the matchers read from a run: a `Run`, or anything shaped like its parts. */
export interface RunLike {
  toolCalls: ReadonlyArray<
    Pick<ToolCall, 'name' | 'arguments'> & Partial<Pick<ToolCall, 'id' | 'result' | 'error'>>
  >;
  finalMessage?: string;
  terminalState?: TerminalState;
  error?: unknown;
}

export interface TrajectoryMatchers<R> {
  /** The run's tool calls follow `expected` (see `TrajectoryMode` and `ArgsMode`). */
  toHaveCalledToolSequence(expected: readonly ExpectedToolCall[], options?: TrajectoryOptions): R;
  /** Some call has this name and (if given) arguments containing `args` as a deep subset. */
  toHaveCalledTool(name: string, args?: ExpectedArgs): R;
  /** A string is a substring check; a RegExp or asymmetric matcher must match. */
  toHaveFinalMessage(expected: string | RegExp | AsymmetricMatcherLike): R;
  toHaveTerminalState(state: TerminalState | AsymmetricMatcherLike): R;
  /** The run changed exactly these workspace files (any order); a failure shows the diffs. */
  toHaveChangedFiles(paths: readonly string[]): R;
  /** The drill result's verdict is "passed"; a failure lists every criterion (✓ / ✗). */
  toHavePassedDrill(): R;
  /** Snapshots the system prompt and tool manifest a ModelCall (or every call of a Run) carried. */
  toMatchPromptSnapshot(hint?: string): R;
  /** The prompt (system, messages, tools; the largest call of a Run) counts fewer than `limit` tokens. */
  toHavePromptTokensBelow(
    limit: number,
    options?: { encoding?: 'o200k_base' | 'cl100k_base'; scope?: 'request' | 'system+tools' },
  ): R;
}

// Both the global `expect` (@types/jest) and `import { expect } from '@jest/globals'`
// (whose Matchers interface is declared in the `expect` package) see the matchers.
declare global {
  namespace jest {
    // `T` is unused but must mirror the declaration in @types/jest for the merge.
    interface Matchers<R, T = {}> extends TrajectoryMatchers<R> {}
  }
}

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends TrajectoryMatchers<R> {}
}
