/**
 * The world: stateful tools, tool overrides and mockTool. Only the public parts; src/index.ts
 * re-exports all of this from the package root (drills are in src/drills).
 */
export type { BehaviorContext } from './behaviors';
export type { CriterionResult } from './criteria';
export {
  ToolMockError,
  WorldError,
  type WorldErrorCode,
  WorldFileError,
  type WorldIssue,
  type WorldIssueCode,
} from './errors';
export type { Binding, WorkspaceHandle, WorldClockHandle, WorldHandle, WorldResetOptions } from './handle';
export type { FileWorld } from './host/contract';
export type { McpTransport } from './transports/mcp/in-process';
export { type MockToolOptions, mockTool } from './transports/mock-tool';
export type * from './types';
