/**
 * Runs test files in a consumer project that has the packed tarball installed: the preset
 * (`preset: 'jest-understudy'`), the built environment and matchers, plain CommonJS test
 * files and no transform of ours, as a user's project runs them. The project comes from
 * ./pack.ts (globalSetup), or from UNDERSTUDY_INSTALLED_DIR in the CI consumer jobs.
 *
 * Case files live in __tests__/installed/cases; each run copies that folder into a fresh
 * directory of the project (so `require('jest-understudy')` resolves to the installed
 * package) and runs the named files there.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ChildFile, type ChildRun, spawnJest } from './child-jest';

export const CASES = resolve(__dirname, '..', 'installed', 'cases');

export interface InstalledOptions {
  /** Case files to run, relative to __tests__/installed/cases (globs as Jest's testMatch takes them). */
  cases: string[];
  /** Merged into the consumer's jest.config.js next to `preset: 'jest-understudy'`. */
  config?: Record<string, unknown>;
  /** `testEnvironmentOptions.understudy`, merged into `config`. */
  understudy?: Record<string, unknown>;
  /** Run with NODE_OPTIONS=--experimental-vm-modules (ESM). Default: plain CommonJS, no flag. */
  esm?: boolean;
  /** Files written into the run's folder before Jest starts (path relative to it → content). */
  files?: Record<string, string>;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  args?: string[];
  /**
   * Run Jest through the installed `understudy` CLI with these arguments (`['record']` runs
   * `understudy record -- <Jest's arguments>`), as a user would.
   */
  cli?: string[];
  /** Run in this folder of an earlier run (what it wrote still there) instead of a fresh one. */
  project?: string;
  /** A command Jest runs under, given node and its arguments (see ./netns.ts). */
  prefix?: string[];
}

export interface InstalledRun extends ChildRun {
  /** The run's folder in the consumer project (its rootDir). */
  project: string;
}

/** The consumer project with the tarball installed. */
export function installedProject(): string {
  const dir = process.env.UNDERSTUDY_INSTALLED_DIR;
  if (!dir)
    throw new Error(
      'no installed package: run through the repository Jest config (its globalSetup packs it)',
    );
  return dir;
}

/** Names of credentials the child must never inherit from the developer's shell. */
const KEYS = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENAI_API_KEY',
  'AZURE_OPENAI_API_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
];

export function runInstalled(options: InstalledOptions): Promise<InstalledRun> {
  const base = installedProject();
  mkdirSync(join(base, 'runs'), { recursive: true });
  const project = options.project ?? mkdtempSync(join(base, 'runs', 'run-'));
  cpSync(CASES, project, { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const target = join(project, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  const config = {
    preset: 'jest-understudy',
    ...options.config,
    ...(options.understudy ? { testEnvironmentOptions: { understudy: options.understudy } } : {}),
    testMatch: options.cases.map((c) => `<rootDir>/${c}`),
  };
  writeFileSync(join(project, 'jest.config.js'), `module.exports = ${JSON.stringify(config, null, 2)};\n`);
  const env: Record<string, string | undefined> = { NODE_OPTIONS: undefined, UNDERSTUDY_MODE: undefined };
  for (const key of KEYS) env[key] = undefined;
  if (options.esm) env.NODE_OPTIONS = '--experimental-vm-modules';
  const jestArgs = ['--config', join(project, 'jest.config.js'), ...(options.args ?? [])];
  return spawnJest({
    jest: options.cli
      ? join(base, 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js')
      : join(base, 'node_modules', 'jest', 'bin', 'jest.js'),
    cwd: project,
    dir: project,
    ...(options.cli && { command: [...options.cli, '--'] }),
    args: jestArgs,
    env: { ...env, ...options.env },
    prefix: options.prefix,
  }).then((run) => ({ ...run, project }));
}

/** The results of one case file of a run; throws when the file ran no tests. */
export function fileOf(run: InstalledRun, name: string): ChildFile {
  const file = run.files.find((f) => f.name.endsWith(`/${name}`));
  if (!file) throw new Error(`no results for ${name}:\n${run.stderr}`);
  if (file.tests.length === 0) throw new Error(`${name} ran no tests:\n${file.message}`);
  return file;
}

/** Each test's title → its status. */
export const statuses = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.title, t.status]));

/** A test's failure messages, joined. */
export function messageOf(file: ChildFile, title: string): string {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}" in ${file.name}`);
  return test.failureMessages.join('\n');
}
