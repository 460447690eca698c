/**
 * The child runs the installed suites share (../installed/shared.ts). The installed project's
 * globalSetup runs the shared projects of the drivers the run selected: one child Jest per
 * runner, the runners at once, each with as many workers as the machine has cores, so the cases
 * pay for one Jest start per runner instead of one per driver and runner. Drivers then read their
 * project's part with `sharedRun`, which runs it in a child of its own when the run could not
 * tell in advance which drivers it runs (a test name filter, changed files, a shard…).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { Config } from '@jest/types';
import { SHARED, type SharedName, type SharedProject } from '../installed/shared';
import type { ChildRun } from './child-jest';
import { type InstalledProjectRun, RUNNERS, type Runner, runInstalledProjects } from './installed';
import { runnersOf } from './runner-tier';

/** Names the file with the shared runs' results, for the workers (set by the globalSetup). */
const RESULTS = 'UNDERSTUDY_SHARED_RUNS';
const DRIVERS = resolve(__dirname, '..', 'installed');
/**
 * A shared child runs every selected project's cases, under the three runners at once: on a loaded
 * 2-core machine that is many minutes, not a hang. A hung child still ends, and its drivers fail
 * with what it printed.
 */
const SHARED_RUN_TIMEOUT_MS = 1_200_000;

/** One runner's shared child: its run (the files of every project), or why there is none. */
type SharedResult = { run: ChildRun; projects: Partial<Record<SharedName, string>> } | { error: string };

/** Whether the run's test files are known from its path patterns alone. */
function selectedByPath(config: Config.GlobalConfig): boolean {
  return !(
    config.testNamePattern ||
    config.onlyChanged ||
    config.onlyFailures ||
    config.findRelatedTests ||
    config.lastCommit ||
    config.changedSince ||
    config.shard ||
    config.listTests
  );
}

/** globalSetup: runs the shared projects of the drivers this run selected, and says where the results are. */
export async function runSharedProjects(config: Config.GlobalConfig): Promise<void> {
  for (const [name, project] of Object.entries<SharedProject>(SHARED))
    if (!existsSync(join(DRIVERS, project.driver)))
      throw new Error(
        `the shared project ${name} names a driver that is not there: __tests__/installed/${project.driver}`,
      );
  if (!selectedByPath(config)) return;
  const paths = config.testPathPatterns.toExecutor({ rootDir: config.rootDir });
  const selected = (Object.entries(SHARED) as Array<[SharedName, SharedProject]>).filter(([, project]) =>
    paths.isMatch(join(DRIVERS, project.driver)),
  );
  if (selected.length === 0) return;
  const runners = Object.keys(RUNNERS) as Runner[];
  const results = await Promise.all(
    runners.map(async (runner): Promise<[Runner, SharedResult] | []> => {
      const projects = Object.fromEntries(
        selected.filter(([, project]) => runnersOfProject(project).includes(runner)),
      );
      if (Object.keys(projects).length === 0) return [];
      try {
        const runs = await runInstalledProjects(projects, {
          ...RUNNERS[runner],
          args: [`--maxWorkers=${availableParallelism()}`],
          timeoutMs: SHARED_RUN_TIMEOUT_MS,
        });
        const named = Object.entries(runs) as Array<[SharedName, InstalledProjectRun]>;
        return [
          runner,
          {
            run: named[0][1].process,
            projects: Object.fromEntries(named.map(([name, r]) => [name, r.project])),
          },
        ];
      } catch (error) {
        return [runner, { error: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  const file = `${process.env.UNDERSTUDY_INSTALLED_RUNS}-shared.json`;
  writeFileSync(file, JSON.stringify(Object.fromEntries(results.filter((r) => r.length > 0))));
  process.env[RESULTS] = file;
}

/** The runners a shared project runs under in this run's tier. */
function runnersOfProject(project: SharedProject): readonly Runner[] {
  return project.everyRunner ? project.runners : runnersOf(project.driver, project.runners);
}

let results: Partial<Record<Runner, SharedResult>> | undefined;

/** One shared project's run under one runner: from the shared child, else from a child of its own. */
export async function sharedRun(name: SharedName, runner: Runner): Promise<InstalledProjectRun> {
  const project: SharedProject = SHARED[name];
  if (!project.runners.includes(runner))
    throw new Error(
      `the shared project ${name} does not run under ${runner} (__tests__/installed/shared.ts)`,
    );
  const file = process.env[RESULTS];
  if (file) {
    results ??= JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<Runner, SharedResult>>;
    const shared = results[runner];
    if (shared && 'error' in shared)
      throw new Error(`the shared ${runner} child run of the installed cases failed: ${shared.error}`);
    const folder = shared?.projects[name];
    if (shared && folder)
      return {
        project: folder,
        files: shared.run.files.filter((f) => f.name.startsWith(`${folder}${sep}`)),
        process: shared.run,
      };
  }
  const runs = await runInstalledProjects({ [name]: project }, RUNNERS[runner]);
  return runs[name];
}
