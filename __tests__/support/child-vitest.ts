/**
 * A child Vitest in the consumer project, as ./child-jest.ts is a child Jest: the config a Vitest
 * user writes (the plugin from `jest-understudy/vitest`, the test globals on), and the per-file,
 * per-test results from Vitest's JSON reporter, in the shape of the Jest driver's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChildRun, filesOf, runChild } from './child-jest';

/** One Vitest project of a config: the plugin's options and the config's `test` object. */
export interface VitestProject {
  /** The plugin's options (what Jest takes as `testEnvironmentOptions.understudy`). */
  understudy?: Record<string, unknown>;
  /** The config's `test` object (include, root, name…). */
  test: Record<string, unknown>;
}

// Cold first tests on a loaded machine, not a timeout under test (as for the child Jests).
const TEST_DEFAULTS = { testTimeout: 30_000 };

const projectText = (p: VitestProject) =>
  `{ plugins: [understudy(${JSON.stringify(p.understudy ?? {})})], test: ${JSON.stringify({ ...TEST_DEFAULTS, ...p.test })} }`;

/**
 * The text of a vitest.config.mjs: one project as the whole config, or several as the `projects`
 * of one run (each its own root, include and plugin options), as a user's workspace config has them.
 */
export function vitestConfigText(projects: VitestProject | VitestProject[]): string {
  const body = Array.isArray(projects)
    ? `{ test: { projects: [\n${projects.map((p) => `  ${projectText(p)},`).join('\n')}\n] } }`
    : projectText(projects);
  return [
    "import { defineConfig } from 'vitest/config';",
    "import understudy from 'jest-understudy/vitest';",
    `export default defineConfig(${body});`,
    '',
  ].join('\n');
}

export interface VitestSpawn {
  /** The consumer project (its node_modules has vitest and the package). */
  base: string;
  /** The folder Vitest runs in, where vitest.config.mjs and the results are. */
  cwd: string;
  args?: string[];
  /** Run Vitest through the installed `understudy` CLI with these arguments, which finds the runner. */
  cli?: string[];
  env?: Record<string, string | undefined>;
  /** A command Vitest runs under, given node and its arguments (see ./netns.ts). */
  prefix?: string[];
  /** The time bound, when not the child runs' default (a run of many projects takes longer). */
  timeoutMs?: number;
}

/**
 * A reporter that writes every error of each test file (moduleId → each as Vitest prints its first
 * line: name, then message): Vitest's JSON reporter gives the message of a file's first error
 * alone, where Jest's file message has them all, each under its first line.
 */
const fileErrorsReporter = (out: string) => `import { writeFileSync } from 'node:fs';
export default class FileErrors {
  onTestRunEnd(modules) {
    const errors = Object.fromEntries(
      modules.map((m) => [m.moduleId, m.errors().map((e) => (e.name ? e.name + ': ' : '') + e.message)]),
    );
    writeFileSync(${JSON.stringify(out)}, JSON.stringify(errors));
  }
}
`;

/** Runs `vitest run` (or the CLI over it) in `cwd` and reads its JSON results. */
export async function spawnVitest(options: VitestSpawn): Promise<ChildRun> {
  const out = join(options.cwd, 'results.json');
  const errorsOut = join(options.cwd, 'file-errors.json');
  const reporter = join(options.cwd, 'file-errors.reporter.mjs');
  // A results file of an earlier run in the same folder must not pass for this run's.
  writeFileSync(out, '');
  writeFileSync(errorsOut, '{}');
  writeFileSync(reporter, fileErrorsReporter(errorsOut));
  const argv = [
    ...(options.cli
      ? [
          join(options.base, 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js'),
          ...options.cli,
          '--',
        ]
      : [join(options.base, 'node_modules', 'vitest', 'vitest.mjs'), 'run']),
    '--reporter=default',
    '--reporter=json',
    `--reporter=${reporter}`,
    `--outputFile.json=${out}`,
    ...(options.args ?? []),
  ];
  const { code, stdout, stderr, timedOut } = await runChild(argv, options);
  if (timedOut) throw new Error(`the child Vitest was killed by its time bound:\n${stdout}\n${stderr}`);
  let files: ChildRun['files'] = [];
  try {
    files = filesOf(JSON.parse(readFileSync(out, 'utf8')));
    const errors: Record<string, string[]> = JSON.parse(readFileSync(errorsOut, 'utf8'));
    for (const file of files) if (errors[file.name]?.length) file.message = errors[file.name].join('\n\n');
  } catch {
    // No results (Vitest refused to start): the exit code and the output tell why.
  }
  return { code, stdout, stderr, files, dir: options.cwd };
}
