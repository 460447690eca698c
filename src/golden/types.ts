import type { ArgsMode, TrajectoryMode } from '../../matchers/types';
import type { Fixture } from '../fixtures/types';

/** An expected tool call: a name, or a name with arguments. */
export type GoldenStep = string | { name: string; args?: Record<string, unknown> };

export interface GoldenTrajectory {
  steps: GoldenStep[];
  mode: TrajectoryMode;
  args: ArgsMode;
}

/** One scenario of a golden task file, as loaded (paths absolute, defaults applied). */
export interface GoldenTask {
  id: string;
  description?: string;
  tags?: string[];
  input: unknown;
  /** Fixture files (absolute paths): the task's own, then the file's shared ones. */
  fixtureFiles: string[];
  /** Inline fixtures: the task's own, then the file's shared ones. */
  fixtures: Fixture[];
  /** The world file (absolute), passed through to `setup` and the agent. */
  world?: string;
  scenario?: string | Record<string, unknown>;
  timeoutMs?: number;
  metadata?: Record<string, unknown>;
  expect: {
    trajectory?: GoldenTrajectory;
    finalMessage?: string | { regex: string; flags?: string };
    terminalState?: string;
  };
  negative: {
    neverCalls: GoldenStep[];
    forbiddenOrders: GoldenStep[][];
  };
  /** The file it came from and its position there. */
  file: string;
  index: number;
}

export interface GoldenFile {
  file: string;
  description?: string;
  tasks: GoldenTask[];
}
