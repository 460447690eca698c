import { toHaveCalledTool } from './called-tool';
import { toHavePassedDrill } from './drill';
import { toHaveFinalMessage } from './final-message';
import { toHandleAllFaults } from './handle-faults';
import { toHavePromptTokensBelow, toMatchPromptSnapshot } from './prompt';
import { toHaveTerminalState } from './terminal-state';
import { toHaveCalledToolSequence } from './tool-sequence';

export type { DrillResultLike } from './drill';
export type { PromptTokenOptions, TokenEncoding } from './prompt';
export type {
  ArgsMode,
  AsymmetricMatcherLike,
  ExpectedArgs,
  ExpectedToolCall,
  RunLike,
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
  toHandleAllFaults,
};

/** Registers the matchers on the given `expect` (global or from `@jest/globals`). */
export function registerMatchers(expect: { extend(extensions: typeof matchers): void }): void {
  expect.extend(matchers);
}
