/**
 * Runs Vitest case files in the consumer project that has the packed tarball installed, as a
 * Vitest user's project runs them: `vitest run` with `plugins: [understudy(options)]` from
 * `jest-understudy/vitest`, ES module test files, no transform of ours. Cases live in
 * __tests__/installed/cases/vitest; each run copies that folder into a fresh folder of the project.
 * The results come from Vitest's JSON reporter, in the shape of the Jest driver's (./child-jest.ts).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChildFile, ChildRun } from './child-jest';
import { root } from './child-jest';
import { CASES, freshFolder, installedProject } from './installed';

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

/** Credentials the child must never inherit from the developer's shell. */
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

const CHILD_TIMEOUT_MS = 300_000;

/** The config a Vitest user writes, with the plugin and the run's options. */
export function vitestConfig(options: Pick<VitestOptions, 'understudy' | 'test' | 'cases'>): string {
  const test = { testTimeout: 30_000, ...options.test, include: options.cases };
  return [
    "import { defineConfig } from 'vitest/config';",
    "import understudy from 'jest-understudy/vitest';",
    `export default defineConfig({ plugins: [understudy(${JSON.stringify(options.understudy ?? {})})], test: ${JSON.stringify(test)} });`,
    '',
  ].join('\n');
}

export async function runInstalledVitest(options: VitestOptions): Promise<VitestRun> {
  const base = installedProject();
  const project = options.project ?? freshFolder('vitest-');
  if (!options.project) cpSync(VITEST_CASES, project, { recursive: true });
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const target = join(project, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  writeFileSync(join(project, 'vitest.config.mjs'), options.configText ?? vitestConfig(options));
  const out = join(project, 'results.json');
  const env: Record<string, string> = {};
  const overrides: Record<string, string | undefined> = {
    NODE_OPTIONS: undefined,
    UNDERSTUDY_MODE: undefined,
  };
  for (const key of KEYS) overrides[key] = undefined;
  const merged = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...overrides, ...options.env };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) env[k] = v;
  const argv = [
    ...(options.cli
      ? [join(base, 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js'), ...options.cli, '--']
      : [join(base, 'node_modules', 'vitest', 'vitest.mjs'), 'run']),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, argv, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  timer.unref();
  const code = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', (exit) => {
      clearTimeout(timer);
      done(exit);
    });
  });
  let files: ChildFile[] = [];
  try {
    const parsed = JSON.parse(readFileSync(out, 'utf8')) as {
      testResults: Array<{ name: string; message: string; assertionResults: any[] }>;
    };
    files = parsed.testResults.map((r) => ({
      name: r.name,
      message: r.message,
      tests: r.assertionResults.map((a) => ({
        title: a.title,
        fullName: a.fullName,
        status: a.status,
        failureMessages: a.failureMessages,
      })),
    }));
  } catch {
    // No results (Vitest refused to start): the exit code and the output tell why.
  }
  return { code, stdout, stderr, files, dir: project, project };
}
