import { toHaveCalledTool } from './called-tool';
import { toHavePassedDrill } from './drill';
import { toHaveFinalMessage } from './final-message';
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
  toHaveCalledToolSequence,
  toHaveCalledTool,
  toHaveFinalMessage,
  toHaveTerminalState,
  toHavePassedDrill,
  toMatchPromptSnapshot,
  toHavePromptTokensBelow,
  toOnlyCallTools,
  toNeverCallTools,
  toHaveStepCount,
  toHaveSpans,
};

/** Registers the matchers on the given `expect` (global or from `@jest/globals`). */
export function registerMatchers(expect: { extend(extensions: typeof matchers): void }): void {
  expect.extend(matchers);
}
