import type { TerminalState, ToolCall } from '../src/run/types';

/**
 * How the expected steps relate to the calls the run made.
 * - `exact`: same length, same order.
 * - `ordered`: expected is a subsequence of the calls (other calls may come between).
 * - `unordered`: same calls as a multiset, in any order, nothing extra.
 * - `contains` (also `subset`): every expected step was called, in any order; extra calls
 *   allowed. agentevals calls this `superset`.
 * - `within` (also `superset`): every call is among the expected steps; expected steps may be
 *   missing. agentevals calls this `subset`.
 */
export type TrajectoryMode =
  | 'exact'
  | 'ordered'
  | 'unordered'
  | 'contains'
  | 'within'
  | 'subset'
  | 'superset';

/**
 * How an expected step's `args` are compared with a call's arguments.
 * - `contains` (also `subset`, the default): the call's arguments contain the expected args as
 *   a deep subset (objects recursively; arrays need the same length, each element compared
 *   the same way). agentevals' `tool_args_match_mode` calls this `superset`.
 * - `exact`: deep equality (`toEqual` semantics).
 * - `ignore`: names only.
 * - `within` (also `superset`): the call's arguments are a deep subset of the expected args.
 *   agentevals calls this `subset`.
 * A step without `args` matches any arguments in every mode.
 */
export type ArgsMode = 'contains' | 'exact' | 'ignore' | 'within' | 'subset' | 'superset';

/**
 * How one tool's arguments are compared, overriding `args` for that tool (agentevals'
 * `toolArgsMatchOverrides`): a mode, the argument names to compare (each deeply equal, the
 * rest ignored), or a function of the call's arguments and the step's.
 */
export type ToolArgsComparison = ArgsMode | readonly string[] | ((actual: any, expected: any) => boolean);

export interface TrajectoryOptions {
  mode?: TrajectoryMode;
  args?: ArgsMode;
  /** Per tool name: how that tool's arguments are compared (instead of `args`). */
  argsBy?: Record<string, ToolArgsComparison>;
}

/**
 * How a tool call ended: `error` when the agent sent its result back as an error or the last
 * world operation that served it failed; `unanswered` when the agent never ran it (no later
 * request carried its result, no world operation served it: only the requested matchers see
 * such a call); else `ok`.
 */
export type ToolOutcome = 'ok' | 'error' | 'unanswered';

/** What a step's outcome must be; `code` (an error code such as `BUSY`) implies `outcome: 'error'`. */
export interface OutcomeExpectation {
  outcome?: ToolOutcome;
  code?: string;
}

/** A count (or a length of time): exactly `n`, or within `{ min?, max? }`, both inclusive. */
export type Bounds = number | { min?: number; max?: number };

export interface CalledToolOptions extends OutcomeExpectation {
  /** How many calls must match name, args and outcome (default: at least one). */
  times?: Bounds;
}

/** Which spans of a run's trace an assertion is about, and what must hold for them. */
export interface SpanQuery {
  /** The span name (`execute_tool issue_refund`, `chat gpt-4o`), exactly or by pattern. */
  name?: string | RegExp;
  kind?: 'run' | 'model' | 'tool' | 'operation';
  /** OTLP status: `error` (code 2), `ok` (1) or `unset` (0). */
  status?: 'ok' | 'error' | 'unset';
  /** Attributes the span carries (each deeply equal; asymmetric matchers work). */
  attributes?: Record<string, unknown>;
  /** How many spans must match (default: at least one). */
  count?: Bounds;
  /** Each matching span's duration in ms, on the test's clock (Jest's fake timers included). */
  durationMs?: Bounds;
}

/** An `expect.any(...)`, `expect.stringMatching(...)`, … value. */
export interface AsymmetricMatcherLike {
  asymmetricMatch(other: unknown): boolean;
}

export type ExpectedArgs = Record<string, unknown> | AsymmetricMatcherLike;

export type ExpectedToolCall = string | ({ name: string; args?: ExpectedArgs } & OutcomeExpectation);

/** What the matchers read from a run: a `Run`, or anything shaped like its parts. */
export interface RunLike {
  toolCalls: ReadonlyArray<
    Pick<ToolCall, 'name' | 'arguments'> &
      Partial<Pick<ToolCall, 'id' | 'result' | 'error' | 'answered' | 'operations' | 'incomplete'>>
  >;
  /** The world operations of the run; a tool call's `operations` are `seq`s into it. */
  operations?: ReadonlyArray<{ seq: number; packageId?: string; operationId?: string; outcome?: unknown }>;
  /** The run's model requests (its steps). */
  modelCalls?: ReadonlyArray<unknown>;
  /** The run's spans (OTLP/JSON). */
  trace?: ReadonlyArray<unknown>;
  finalMessage?: string;
  terminalState?: TerminalState;
  error?: unknown;
}

export interface TrajectoryMatchers<R> {
  /**
   * The tool calls the agent ran follow `expected` (see `TrajectoryMode` and `ArgsMode`). A call
   * the model requested that the agent never ran (no result went back, no world operation
   * served it) is not one of them.
   */
  toHaveCalledToolSequence(expected: readonly ExpectedToolCall[], options?: TrajectoryOptions): R;
  /** The tool calls the model requested, run or not, follow `expected`. */
  toHaveRequestedToolSequence(expected: readonly ExpectedToolCall[], options?: TrajectoryOptions): R;
  /**
   * Some call the agent ran has this name and (if given) arguments containing `args` as a deep
   * subset, and the outcome asked for (an outcome, and an error code such as BUSY); `times`
   * bounds how many do.
   */
  toHaveCalledTool(name: string, args?: ExpectedArgs, options?: CalledToolOptions): R;
  /** The model requested this tool (with these arguments), whether the agent ran it or not. */
  toHaveRequestedTool(name: string, args?: ExpectedArgs, options?: CalledToolOptions): R;
  /** Every tool call the agent ran is one of these (a name, or `{ name, args }`). */
  toOnlyCallTools(allowed: readonly ExpectedToolCall[]): R;
  /** No tool call the agent ran is one of these (a name, or `{ name, args }`). */
  toNeverCallTools(forbidden: readonly ExpectedToolCall[]): R;
  /** The run made this many steps (model calls): a number or `{ min?, max? }`. */
  toHaveStepCount(expected: Bounds): R;
  /** The run's trace has spans matching the query (by default at least one). */
  toHaveSpans(query: SpanQuery): R;
  /** A string is a substring check; a RegExp or asymmetric matcher must match. */
  toHaveFinalMessage(expected: string | RegExp | AsymmetricMatcherLike): R;
  toHaveTerminalState(state: TerminalState | AsymmetricMatcherLike): R;
  /** The run changed exactly these workspace files (any order); a failure shows the diffs. */
  toHaveChangedFiles(paths: readonly string[]): R;
  /** The drill result's verdict is "passed"; a failure lists every criterion (✓ / ✗). */
  toHavePassedDrill(): R;
  /** Snapshots the system prompt and tool manifest a ModelCall (or every call of a Run) carried. */
  toMatchPromptSnapshot(hint?: string): R;
  /**
   * A judge model finds the text (a string, or a Run's final message) satisfies the rubric; its
   * verdict is recorded in the test's cassette and replayed. Await it.
   */
  toSatisfyJudge(
    rubric: string,
    options?: { provider?: 'openai' | 'anthropic' | 'gemini'; model?: string; baseURL?: string },
  ): Promise<R>;
  /** The run's model calls cost less than `usd` (their usage times the price table and the `prices` option). */
  toHaveCostBelow(usd: number): R;
  /** The run took less than `ms`: wall time live, the simulated time of its model calls in replay. */
  toHaveLatencyBelow(ms: number): R;
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
