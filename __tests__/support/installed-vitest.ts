/**
 * Runs Vitest case files in the consumer project that has the packed tarball installed, as a
 * Vitest user's project runs them: `vitest run` with `plugins: [understudy(options)]` from
 * `jest-understudy/vitest`, ES module test files, no transform of ours. Cases live in
 * __tests__/installed/cases/vitest; each run copies that folder into a fresh folder of the project.
 * The results come from Vitest's JSON reporter, in the shape of the Jest driver's (./child-jest.ts).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ChildRun, root } from './child-jest';
import { spawnVitest, vitestConfigText } from './child-vitest';
import { CASES, freshFolder, inheritedNothing, installedProject } from './installed';

export const VITEST_CASES = join(CASES, 'vitest');

export interface VitestOptions {
  /** Case files to run, relative to __tests__/installed/cases/vitest. */
  cases: string[];
  /** The plugin's options (what Jest takes as `testEnvironmentOptions.understudy`). */
  understudy?: Record<string, unknown>;
  /** Merged into the config's `test` object. */
  test?: Record<string, unknown>;
  /** The config file's text instead of the one made from the options above. */
  configText?: string;
  /** Files written into the run's folder before Vitest starts (path relative to it → content). */
  files?: Record<string, string>;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Arguments after `vitest run` (e.g. `['--pool=threads']`). */
  args?: string[];
  /** Run in this folder of an earlier run instead of a fresh one. */
  project?: string;
  /**
   * Run Vitest through the installed `understudy` CLI with these arguments (`['record']` runs
   * `understudy record -- <Vitest's arguments>`), which finds the runner from the project.
   */
  cli?: string[];
}

/**
 * An example's files (examples/<name>, its Jest tests left out) under the folder `as`, for
 * `files`: a Vitest case beside them imports its agent, tools and worlds as `./<as>/…`.
 * `replace` swaps a file's content by its name in the example.
 */
export function exampleFiles(
  name: string,
  as: string,
  replace: Record<string, string> = {},
): Record<string, string> {
  const dir = join(root, 'examples', name);
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${entry}` : entry;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (!entry.endsWith('.test.ts'))
        files[`${as}/${path}`] = replace[path] ?? readFileSync(join(dir, path), 'utf8');
    }
  };
  walk('');
  return files;
}

export interface VitestRun extends ChildRun {
  project: string;
}

/** The config a Vitest user writes, with the plugin and the run's options. */
export function vitestConfig(options: Pick<VitestOptions, 'understudy' | 'test' | 'cases'>): string {
  return vitestConfigText({
    understudy: options.understudy,
    test: { ...options.test, include: options.cases },
  });
}

export async function runInstalledVitest(options: VitestOptions): Promise<VitestRun> {
  const project = options.project ?? freshFolder('vitest-');
  if (!options.project) cpSync(VITEST_CASES, project, { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const target = join(project, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  writeFileSync(join(project, 'vitest.config.mjs'), options.configText ?? vitestConfig(options));
  const run = await spawnVitest({
    base: installedProject(),
    cwd: project,
    args: options.args,
    cli: options.cli,
    env: { ...inheritedNothing(), ...options.env },
  });
  return { ...run, project };
}
