// Importing the package also brings the matcher typings for `expect` (global and @jest/globals).

export type { FaultException, HandleAllFaultsOptions } from '../matchers/handle-faults';
export type { ArgsMode, ExpectedToolCall, TrajectoryMode, TrajectoryOptions } from '../matchers/types';
export type { ContractRule, ContractsSetting } from './contracts/rules';
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
export { type ErrorCode, isUnderstudyError, UnderstudyError } from './errors';
export { type FileIssue, FileIssuesError } from './file-format/issue';

import { lazyFunction } from './lazy';

export type {
  BehaviorOverride,
  DrillAgentContext,
  DrillBuild,
  DrillResult,
  DrillSetup,
  DrillTask,
  DrillTrial,
  RunDrillsOptions,
} from './drills/run-drills';
export { FixtureFileError, type FixtureIssue, type FixtureIssueCode } from './fixtures/errors';
export {
  type ScriptBuilder,
  type ScriptFailure,
  type ScriptToolCall,
  script,
  type ToolArguments,
} from './fixtures/script';
export {
  DIALECT_NAMES,
  DIALECTS,
  type DialectName,
  type DialectSetting,
} from './fixtures/stream-dialects';
export type {
  Fixture,
  FixtureBlock,
  FixtureError,
  FixtureMatch,
  FixtureResponse,
  FixtureStreamError,
  FixtureToolCall,
  FixtureUsage,
  RedactHook,
  StreamShaping,
  TextPattern,
} from './fixtures/types';
export type { FixtureValidation, ValidateOptions } from './fixtures/validate';
export type { FixtureSourceLike, WriteFixturesOptions } from './fixtures/write';
export type { GoldenContext, GoldenTaskOptions } from './golden/describe';
export { GoldenFileError } from './golden/errors';
export type { ExportedTask } from './golden/export';
export type { GoldenFile, GoldenStep, GoldenTask } from './golden/types';

// Entry points a test file may never call are required on first use (see lazy.ts).
const fixtureLoad = (): typeof import('./fixtures/load') => require('./fixtures/load');
const fixtureWrite = (): typeof import('./fixtures/write') => require('./fixtures/write');
const fixtureValidate = (): typeof import('./fixtures/validate') => require('./fixtures/validate');
const drills = (): typeof import('./drills/run-drills') => require('./drills/run-drills');
const goldenDescribe = (): typeof import('./golden/describe') => require('./golden/describe');
const goldenExport = (): typeof import('./golden/export') => require('./golden/export');
const goldenLoad = (): typeof import('./golden/load') => require('./golden/load');
const standalone = (): typeof import('./record/standalone') => require('./record/standalone');
export const loadFixtures = lazyFunction(fixtureLoad, 'loadFixtures');
export const loadFixtureFiles = lazyFunction(fixtureLoad, 'loadFixtureFiles');
export const writeFixtures = lazyFunction(fixtureWrite, 'writeFixtures');
export const validateFixtureFile = lazyFunction(fixtureValidate, 'validateFixtureFile');
// Drills load the world compiler and file loader (ajv, js-yaml).
export const runDrills = lazyFunction(drills, 'runDrills');
export const describeGoldenTasks = lazyFunction(goldenDescribe, 'describeGoldenTasks');
export const checkGoldenTask = lazyFunction(goldenDescribe, 'checkGoldenTask');
export const exportTask = lazyFunction(goldenExport, 'exportTask');
export const toJsonl = lazyFunction(goldenExport, 'toJsonl');
export const loadGoldenFile = lazyFunction(goldenLoad, 'loadGoldenFile');
export const record = lazyFunction(standalone, 'record');
export type { BrowserRouting } from './browser/route';
export type { ModelCall } from './model/call';
export { dialectsFor } from './model/dialects';
export type { MockModel } from './model/mock-model';
export type { UnderstudyOptions } from './options';
export type { CostUsage, ModelPrice, PriceTable } from './pricing';

const pricing = (): typeof import('./pricing') => require('./pricing');
export const costOf = lazyFunction(pricing, 'costOf');
export const priceOf = lazyFunction(pricing, 'priceOf');
export type { UnderstudyMode } from './record/mode';
export type { RecordOptions } from './record/standalone';
export { REDACTED, type ScrubOptions, scrubSecrets, scrubText } from './redact';
export { CrashError, type CrashInfo, type CrashPlan, isCrashError } from './run/crash';
export type { AgentHarness, AgentHarnessOptions, HarnessRunRequest } from './run/harness';
export type { RunContext, RunOptions } from './run/run';
export type { Run, RunOperation, TerminalState, ToolCall, TraceSpan } from './run/types';
export { live } from './sandbox/live';
export type { Served, ServedUrls } from './sandbox/serve-mode';
export type { ToolFakeOptions } from './scenario/fakes';
export type {
  ExecuteAgentOptions,
  Scenario,
  ScenarioAgentContext,
  ScenarioRun,
} from './scenario/scenario';
export type {
  AcrossProvidersOptions,
  Divergence,
  PortabilityMatrix,
  Protocol,
  ProtocolResult,
  ProviderContext,
  TrajectoryStep,
} from './sweep/across-providers';
export type {
  SweepContext,
  SweepFault,
  SweepOptions,
  SweepResult,
  SweepTarget,
  SweepVariant,
  SweptCall,
} from './sweep/sweep';
export { createAgentHarness, type Understudy, type UnderstudyBrowser, understudy } from './understudy';
export * from './world';
