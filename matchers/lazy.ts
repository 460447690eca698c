/**
 * The matchers as `expect.extend` sees them, each loading its implementation on first
 * use: the preset registers them in every test file, and most files call only a few.
 */
import type { matchers as Matchers } from './index';
import { withCallerUtils } from './matcher-utils';

type Name = keyof typeof Matchers;
type Impl = (this: unknown, ...args: unknown[]) => unknown;

const modules: Record<Name, () => Record<string, Impl>> = {
  toHaveCalledToolSequence: () => require('./tool-sequence'),
  toHaveCalledTool: () => require('./called-tool'),
  toHaveFinalMessage: () => require('./final-message'),
  toHaveTerminalState: () => require('./terminal-state'),
  toHavePassedDrill: () => require('./drill'),
  toMatchPromptSnapshot: () => require('./prompt'),
  toHavePromptTokensBelow: () => require('./prompt'),
  toOnlyCallTools: () => require('./permissions'),
  toNeverCallTools: () => require('./permissions'),
  toHaveStepCount: () => require('./step-count'),
  toHaveSpans: () => require('./spans'),
  toHaveChangedFiles: () => require('./changed-files'),
  toHandleAllFaults: () => require('./handle-faults'),
};

export const lazyMatchers = Object.fromEntries(
  (Object.keys(modules) as Name[]).map((name) => [
    name,
    withCallerUtils(function (this: unknown, ...args: unknown[]) {
      return modules[name]()[name].apply(this, args);
    }),
  ]),
) as unknown as typeof Matchers;
