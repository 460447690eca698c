import { toHaveCalledTool } from './called-tool';
import { toHaveChangedFiles } from './changed-files';
import { toHavePassedDrill } from './drill';
import { toHaveFinalMessage } from './final-message';
import { toHandleAllFaults } from './handle-faults';
import { withCallerUtils } from './matcher-utils';
import { toNeverCallTools, toOnlyCallTools } from './permissions';
import { toHavePromptTokensBelow, toMatchPromptSnapshot } from './prompt';
import { toHaveSpans } from './spans';
import { toHaveStepCount } from './step-count';
import { toHaveTerminalState } from './terminal-state';
import { toHaveCalledToolSequence } from './tool-sequence';

export type { DrillResultLike } from './drill';
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

/** The run matchers, for `expect.extend(matchers)`. */
export const matchers = {
  toHaveCalledToolSequence: withCallerUtils(toHaveCalledToolSequence),
  toHaveCalledTool: withCallerUtils(toHaveCalledTool),
  toHaveFinalMessage: withCallerUtils(toHaveFinalMessage),
  toHaveTerminalState: withCallerUtils(toHaveTerminalState),
  toHavePassedDrill: withCallerUtils(toHavePassedDrill),
  toMatchPromptSnapshot: withCallerUtils(toMatchPromptSnapshot),
  toHavePromptTokensBelow: withCallerUtils(toHavePromptTokensBelow),
  toOnlyCallTools: withCallerUtils(toOnlyCallTools),
  toNeverCallTools: withCallerUtils(toNeverCallTools),
  toHaveStepCount: withCallerUtils(toHaveStepCount),
  toHaveSpans: withCallerUtils(toHaveSpans),
  toHaveChangedFiles: withCallerUtils(toHaveChangedFiles),
  toHandleAllFaults: withCallerUtils(toHandleAllFaults),
};

/** Registers the matchers on the given `expect` (global or from `@jest/globals`). */
export function registerMatchers(expect: { extend(extensions: typeof matchers): void }): void {
  expect.extend(matchers);
}
