import { toHaveCostBelow, toHaveLatencyBelow } from './budgets';
import { toHaveCalledTool, toHaveRequestedTool } from './called-tool';
import { toHaveChangedFiles } from './changed-files';
import { toHavePassedDrill } from './drill';
import { toHaveFinalMessage } from './final-message';
import { toHandleAllFaults } from './handle-faults';
import { toSatisfyJudge } from './judge';
import { withCallerUtils } from './matcher-utils';
import { withNoteOnFailure } from './on-failure';
import { toNeverCallTools, toOnlyCallTools } from './permissions';
import { toHavePromptTokensBelow, toMatchPromptSnapshot } from './prompt';
import { runOutcomeNote } from './run-outcome';
import { toHaveSpans } from './spans';
import { toHaveStepCount } from './step-count';
import { toHaveTerminalState } from './terminal-state';
import { toHaveCalledToolSequence, toHaveRequestedToolSequence } from './tool-sequence';

export type { DrillResultLike } from './drill';
export type { JudgeOptions } from './judge';
export type { PromptTokenOptions, TokenEncoding } from './prompt';
export type {
  ArgsMode,
  AsymmetricMatcherLike,
  Bounds,
  CalledToolOptions,
  ExpectedArgs,
  ExpectedToolCall,
  OutcomeExpectation,
  RunLike,
  SpanQuery,
  ToolArgsComparison,
  ToolOutcome,
  TrajectoryMatchers,
  TrajectoryMode,
  TrajectoryOptions,
} from './types';

/** A run matcher: the caller's utils, and the agent's error under a failure on a run that crashed. */
function wrap<F extends (this: any, ...args: any[]) => any>(matcher: F): F {
  return withCallerUtils(withNoteOnFailure(matcher, runOutcomeNote));
}

/** The run matchers, for `expect.extend(matchers)`. */
export const matchers = {
  toHaveCalledToolSequence: wrap(toHaveCalledToolSequence),
  toHaveRequestedToolSequence: wrap(toHaveRequestedToolSequence),
  toHaveCalledTool: wrap(toHaveCalledTool),
  toHaveRequestedTool: wrap(toHaveRequestedTool),
  toHaveFinalMessage: wrap(toHaveFinalMessage),
  toHaveTerminalState: wrap(toHaveTerminalState),
  toHavePassedDrill: withCallerUtils(toHavePassedDrill),
  toMatchPromptSnapshot: wrap(toMatchPromptSnapshot),
  toHavePromptTokensBelow: wrap(toHavePromptTokensBelow),
  toOnlyCallTools: wrap(toOnlyCallTools),
  toNeverCallTools: wrap(toNeverCallTools),
  toHaveStepCount: wrap(toHaveStepCount),
  toHaveSpans: wrap(toHaveSpans),
  toHaveChangedFiles: wrap(toHaveChangedFiles),
  toHandleAllFaults: withCallerUtils(toHandleAllFaults),
  toSatisfyJudge: withCallerUtils(toSatisfyJudge),
  toHaveCostBelow: wrap(toHaveCostBelow),
  toHaveLatencyBelow: wrap(toHaveLatencyBelow),
};

/** Registers the matchers on the given `expect` (global or from `@jest/globals`). */
export function registerMatchers(expect: { extend(extensions: typeof matchers): void }): void {
  expect.extend(matchers);
}
