import { toHaveCalledTool } from './called-tool';
import { toHaveFinalMessage } from './final-message';
import { toHaveTerminalState } from './terminal-state';
import { toHaveCalledToolSequence } from './tool-sequence';

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
};

/** Registers the matchers on the given `expect` (global or from `@jest/globals`). */
export function registerMatchers(expect: { extend(extensions: typeof matchers): void }): void {
  expect.extend(matchers);
}
