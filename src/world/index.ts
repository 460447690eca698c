/**
 * The world: stateful tools, tool overrides, mockTool and drills. Only the public parts;
 * src/index.ts re-exports all of this from the package root.
 */
export type { BehaviorContext } from './behaviors';
export type { CriterionResult } from './criteria';
export type {
  BehaviorOverride,
  DrillAgentContext,
  DrillBuild,
  DrillResult,
  DrillSetup,
  DrillTask,
  DrillTrial,
  RunDrillsOptions,
} from './drills';

import { lazyFunction } from '../lazy';

// Drills load the world compiler and file loader (ajv, js-yaml): required on first call.
export const runDrills = lazyFunction((): typeof import('./drills') => require('./drills'), 'runDrills');
export {
  ToolMockError,
  WorldError,
  type WorldErrorCode,
  WorldFileError,
  type WorldIssue,
  type WorldIssueCode,
} from './errors';
export type { Binding, WorldClockHandle, WorldHandle, WorldResetOptions } from './handle';
export type { FileWorld } from './host';
export type { RunOperation } from './link';
export { type MockToolOptions, mockTool } from './mock-tool';
export type * from './types';
