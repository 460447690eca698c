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
import { dirname, join, resolve, sep } from 'node:path';
import { type ChildFile, type ChildRun, spawnJest } from './child-jest';
import { spawnVitest, type VitestProject, vitestConfigText } from './child-vitest';

export const CASES = resolve(__dirname, '..', 'installed', 'cases');

/** One consumer folder of a run: the case files it runs, its Jest options and files of its own. */
export interface InstalledProject {
  /** Case files to run, relative to __tests__/installed/cases (globs as Jest's testMatch takes them). */
  cases: string[];
  /** Merged into the consumer's jest.config.js next to `preset: 'jest-understudy'`. */
  config?: Record<string, unknown>;
  /** `testEnvironmentOptions.understudy`, merged into `config`; the plugin's options under Vitest. */
  understudy?: Record<string, unknown>;
  /**
   * Under Vitest, merged into the config's `test` object (what `config` is for Jest). A project that
   * sets `config` needs this to run under Vitest: Jest's options mean nothing there.
   */
  vitestConfig?: Record<string, unknown>;
  /** Files written into the run's folder before Jest starts (path relative to it → content). */
  files?: Record<string, string>;
}

/** What the child Jest process shares, whichever folders it runs. */
export interface InstalledProcess {
  /** Run with NODE_OPTIONS=--experimental-vm-modules (ESM). Default: plain CommonJS, no flag. */
  esm?: boolean;
  /**
   * Run `vitest run` with the plugin (`jest-understudy/vitest`) and the test globals instead of
   * Jest; `args` and `cli` are then Vitest's (`understudy record -- <Vitest's arguments>`).
   */
  vitest?: boolean;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  args?: string[];
  /**
   * Run Jest through the installed `understudy` CLI with these arguments (`['record']` runs
   * `understudy record -- <Jest's arguments>`), as a user would.
   */
  cli?: string[];
  /** A command Jest runs under, given node and its arguments (see ./netns.ts). */
  prefix?: string[];
  /** The child's time bound, when not the default (a run of many projects takes longer). */
  timeoutMs?: number;
}

/**
 * The ways a case runs: Jest with CommonJS, no flag; Jest with its ESM support
 * (--experimental-vm-modules); Vitest with the plugin. A driver names the runners its cases run
 * under; the cases are the same files under each (cases/runner-globals.cjs gives them the runner's
 * test API).
 */
export const RUNNERS = {
  'jest-cjs': { esm: false },
  'jest-esm': { esm: true },
  vitest: { vitest: true },
} as const satisfies Record<string, InstalledProcess>;

export type Runner = keyof typeof RUNNERS;

export interface InstalledOptions extends InstalledProject, InstalledProcess {
  /** Run in this folder of an earlier run (what it wrote still there) instead of a fresh one. */
  project?: string;
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
const CREDENTIALS = [
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

/**
 * What a child run in the consumer project must not inherit: the developer's credentials, the
 * parent's NODE_OPTIONS and mode (set again where a run needs them).
 */
export function inheritedNothing(): Record<string, undefined> {
  const env: Record<string, undefined> = { NODE_OPTIONS: undefined, UNDERSTUDY_MODE: undefined };
  for (const key of CREDENTIALS) env[key] = undefined;
  return env;
}

/** Copies the cases and the project's files into `folder`; returns its Jest options. */
function prepare(folder: string, project: InstalledProject): Record<string, unknown> {
  copyCases(folder, project);
  return {
    preset: 'jest-understudy',
    // As in child-jest.ts: cold first tests on a loaded machine, not a timeout under test.
    testTimeout: 30_000,
    ...project.config,
    ...(project.understudy ? { testEnvironmentOptions: { understudy: project.understudy } } : {}),
    testMatch: project.cases.map((c) => `<rootDir>/${c}`),
  };
}

function copyCases(folder: string, project: InstalledProject): void {
  cpSync(CASES, folder, { recursive: true });
  for (const [path, content] of Object.entries(project.files ?? {})) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Copies the cases and the project's files into `folder`; returns its Vitest project. */
function prepareVitest(folder: string, project: InstalledProject, name?: string): VitestProject {
  if (project.config && !project.vitestConfig)
    throw new Error(
      `a project that sets Jest options (${Object.keys(project.config).join(', ')}) needs its Vitest options (\`vitestConfig\`) to run under Vitest`,
    );
  copyCases(folder, project);
  return {
    understudy: project.understudy,
    test: {
      ...(name && { name, root: folder }),
      globals: true,
      ...project.vitestConfig,
      include: project.cases,
    },
  };
}

function spawnInstalledVitest(folder: string, config: string, options: InstalledProcess): Promise<ChildRun> {
  writeFileSync(join(folder, 'vitest.config.mjs'), config);
  return spawnVitest({
    base: installedProject(),
    cwd: folder,
    args: options.args,
    cli: options.cli,
    env: { ...inheritedNothing(), ...options.env },
    prefix: options.prefix,
    timeoutMs: options.timeoutMs,
  });
}

function writeConfig(folder: string, config: Record<string, unknown>): string {
  const path = join(folder, 'jest.config.js');
  writeFileSync(path, `module.exports = ${JSON.stringify(config, null, 2)};\n`);
  return path;
}

function spawnInstalled(folder: string, configPath: string, options: InstalledProcess): Promise<ChildRun> {
  const base = installedProject();
  const env: Record<string, string | undefined> = inheritedNothing();
  if (options.esm) env.NODE_OPTIONS = '--experimental-vm-modules';
  return spawnJest({
    jest: options.cli
      ? join(base, 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js')
      : join(base, 'node_modules', 'jest', 'bin', 'jest.js'),
    cwd: folder,
    dir: folder,
    ...(options.cli && { command: [...options.cli, '--'] }),
    args: ['--config', configPath, ...(options.args ?? [])],
    env: { ...env, ...options.env },
    prefix: options.prefix,
    timeoutMs: options.timeoutMs,
  });
}

/** A fresh folder in the consumer project's runs/, named for this Jest run (./pack.ts), which removes it. */
export function freshFolder(prefix: string): string {
  installedProject();
  const runs = process.env.UNDERSTUDY_INSTALLED_RUNS;
  if (!runs)
    throw new Error(
      'no name for the runs: run through the repository Jest config (its globalSetup gives one)',
    );
  return mkdtempSync(`${runs}-${prefix}`);
}

export async function runInstalled(options: InstalledOptions): Promise<InstalledRun> {
  const project = options.project ?? freshFolder('run-');
  if (options.vitest) {
    const run = await spawnInstalledVitest(
      project,
      vitestConfigText(prepareVitest(project, options)),
      options,
    );
    return { ...run, project };
  }
  const run = await spawnInstalled(project, writeConfig(project, prepare(project, options)), options);
  return { ...run, project };
}

/**
 * One project's part of a run of several (see `runInstalledProjects`). Only its files are
 * here: the exit code and the output belong to the whole process (`process`), so a check of
 * either needs a run of its own.
 */
export interface InstalledProjectRun {
  /** The project's folder (its rootDir). */
  project: string;
  files: ChildFile[];
  process: ChildRun;
}

/**
 * Runs several consumer projects in one child Jest, as a user's `projects` config does: each
 * its own folder (its rootDir, with its own copy of the cases and files) and Jest options,
 * the process (environment, arguments, CommonJS or ESM) shared. One Jest start instead of one
 * per project; the results come back by project.
 */
export async function runInstalledProjects<K extends string>(
  projects: Record<K, InstalledProject>,
  options: InstalledProcess = {},
): Promise<Record<K, InstalledProjectRun>> {
  const folder = freshFolder('projects-');
  if (options.vitest) {
    const roots = Object.entries<InstalledProject>(projects).map(([name, project]) => {
      const root = freshFolder(`${name}-`);
      return { name, root, project: prepareVitest(root, project, name) };
    });
    const run = await spawnInstalledVitest(folder, vitestConfigText(roots.map((r) => r.project)), options);
    return byProject(run, roots);
  }
  const entries = Object.entries<InstalledProject>(projects).map(([name, project]) => {
    // Beside the run's folder, not in it: every case folder is two below the consumer project,
    // where a case finds the project's node_modules/.bin.
    const root = freshFolder(`${name}-`);
    return { name, root, config: { displayName: name, rootDir: root, ...prepare(root, project) } };
  });
  // The preset at the top as well: it is where Jest takes the reporters from.
  const config = { preset: 'jest-understudy', testTimeout: 30_000, projects: entries.map((e) => e.config) };
  const run = await spawnInstalled(folder, writeConfig(folder, config), options);
  return byProject(run, entries);
}

/** A run of several projects' folders, its files by project. */
function byProject<K extends string>(
  run: ChildRun,
  projects: Array<{ name: string; root: string }>,
): Record<K, InstalledProjectRun> {
  return Object.fromEntries(
    projects.map(({ name, root }) => [
      name,
      { project: root, files: run.files.filter((f) => f.name.startsWith(`${root}${sep}`)), process: run },
    ]),
  ) as Record<K, InstalledProjectRun>;
}

/** The results of one case file of a run; throws (with the run's output) when it ran no tests. */
export function fileOf(run: InstalledRun | InstalledProjectRun, name: string): ChildFile {
  const file = run.files.find((f) => f.name.endsWith(`/${name}`));
  if (!file)
    throw new Error(`no results for ${name}:\n${'process' in run ? run.process.stderr : run.stderr}`);
  if (file.tests.length === 0) throw new Error(`${name} ran no tests:\n${file.message}`);
  return file;
}

/** Test title → status, of one file. */
export const statuses = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.title, t.status]));

/** A test's failure messages, joined; throws when the file has no such test. */
export function messageOf(file: ChildFile, title: string): string {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}" in ${file.name}`);
  return test.failureMessages.join('\n');
}
