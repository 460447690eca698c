/**
 * The names of the matchers jest-understudy adds to `expect`. A runner adapter registers them
 * before it loads the matchers themselves (./lazy.ts loads each on its first use), so a test file
 * that asserts nothing of an agent does not load them at all.
 */
export const MATCHER_NAMES = [
  'toHaveCalledToolSequence',
  'toHaveRequestedToolSequence',
  'toHaveCalledTool',
  'toHaveRequestedTool',
  'toHaveFinalMessage',
  'toHaveTerminalState',
  'toHavePassedDrill',
  'toMatchPromptSnapshot',
  'toHavePromptTokensBelow',
  'toOnlyCallTools',
  'toNeverCallTools',
  'toHaveStepCount',
  'toHaveSpans',
  'toHaveChangedFiles',
  'toHandleAllFaults',
  'toSatisfyJudge',
  'toHaveCostBelow',
  'toHaveLatencyBelow',
] as const;
