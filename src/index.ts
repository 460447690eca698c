// Importing the package also brings the matcher typings for `expect` (global and @jest/globals).
export type { ArgsMode, ExpectedToolCall, TrajectoryMode, TrajectoryOptions } from '../matchers/types';
export type {
  Conversation,
  FinishReason,
  NeutralError,
  NeutralMessage,
  NeutralReply,
  NeutralTool,
  NeutralToolCall,
  NeutralUsage,
  ProviderId,
} from './conversation';
export { type ErrorCode, UnderstudyError } from './errors';
export * from './fixtures';
export type { MockModel } from './model/mock-model';
export {
  type AgentHarness,
  type AgentHarnessOptions,
  createAgentHarness,
  type HarnessRunRequest,
} from './run/harness';
export type { RunContext, RunOptions } from './run/run';
export type { ModelCall, Run, TerminalState, ToolCall, TraceSpan } from './run/types';
export type { UnderstudyOptions } from './runtime/bridge';
export { type Understudy, understudy } from './understudy';
