export {
  checkGoldenTask,
  describeGoldenTasks,
  type GoldenContext,
  type GoldenTaskOptions,
} from './describe';
export { type ExportedTask, exportTask, toJsonl } from './export';
export {
  GoldenFileError,
  type GoldenIssue,
  loadGoldenFile,
  readGoldenFile,
  validateGoldenFile,
} from './load';
export type { GoldenFile, GoldenStep, GoldenTask, GoldenTrajectory } from './types';
