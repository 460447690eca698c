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
export {
  checkGoldenTask,
  describeGoldenTasks,
  type ExportedTask,
  exportTask,
  type GoldenContext,
  type GoldenFile,
  GoldenFileError,
  type GoldenStep,
  type GoldenTask,
  type GoldenTaskOptions,
  loadGoldenFile,
  toJsonl,
} from './golden';
export type { MockModel } from './model/mock-model';
export type { RedactHook } from './record/build';
export type { UnderstudyMode } from './record/mode';
export { type RecordOptions, record } from './record/standalone';
export { REDACTED, type ScrubOptions, scrubSecrets, scrubText } from './redact';
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
export * from './world';
