/**
 * Which test runner the project in a folder uses, for the commands that run its tests
 * (`understudy record`, `understudy live`): `--runner` when given, else the runner whose config
 * file is there, else the one its `test` script, its package.json or its dependencies name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type RunnerName = 'jest' | 'vitest';
export const RUNNER_NAMES: readonly RunnerName[] = ['jest', 'vitest'];

const CONFIG_EXTENSIONS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json'];
const hasConfig = (dir: string, name: string) =>
  CONFIG_EXTENSIONS.some((ext) => existsSync(join(dir, `${name}.config.${ext}`)));

interface PackageJson {
  scripts?: Record<string, string>;
  jest?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The runner of the project in `dir`, or why it cannot tell. */
export function detectRunner(dir: string): { runner: RunnerName; why: string } | { problem: string } {
  const vitest = hasConfig(dir, 'vitest');
  const jest = hasConfig(dir, 'jest');
  if (vitest && !jest) return { runner: 'vitest', why: 'a vitest.config file' };
  if (jest && !vitest) return { runner: 'jest', why: 'a jest.config file' };
  let pkg: PackageJson = {};
  try {
    pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    // no package.json: the config files (or the default) decide
  }
  const script = pkg.scripts?.test ?? '';
  if (/\bvitest\b/.test(script)) return { runner: 'vitest', why: 'the test script' };
  if (/\bjest\b/.test(script)) return { runner: 'jest', why: 'the test script' };
  if (jest && vitest)
    return {
      problem:
        'the project has both a jest.config and a vitest.config file: choose one with --runner jest or --runner vitest',
    };
  if (pkg.jest !== undefined) return { runner: 'jest', why: 'the "jest" key of package.json' };
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if ('vitest' in deps && !('jest' in deps)) return { runner: 'vitest', why: 'its dependencies' };
  return { runner: 'jest', why: 'the default' };
}

/** The runner's CLI and the arguments that start a single run, as the project in `dir` has it. */
export function runnerCommand(runner: RunnerName, dir: string): { bin: string; args: string[] } | undefined {
  for (const from of [join(dir, 'package.json'), __filename]) {
    try {
      const require = createRequire(from);
      if (runner === 'jest') return { bin: require.resolve('jest/bin/jest'), args: [] };
      // Vitest's exports name no bin: its package.json does.
      const pkg = require.resolve('vitest/package.json');
      const { bin } = JSON.parse(readFileSync(pkg, 'utf8')) as { bin: string | Record<string, string> };
      return { bin: join(dirname(pkg), typeof bin === 'string' ? bin : bin.vitest), args: ['run'] };
    } catch {
      // try the next place
    }
  }
  return undefined;
}
