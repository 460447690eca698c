/**
 * `understudy record -- <runner args>` and `understudy live -- <runner args>`: run the project's
 * test runner (Jest or Vitest, see ../runner.ts) with UNDERSTUDY_MODE set, after the checks the
 * environment would make anyway (no CI, a key), so a misuse fails in a second with exit code 2
 * instead of after the runner starts.
 */
import { spawn } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { ciRefusal, noKeyMessage, realKeys, type UnderstudyMode } from '../../record/mode';
import { readUsage } from '../../record/usage';
import { detectRunner, RUNNER_NAMES, type RunnerName, runnerCommand } from '../runner';

/** What a runner run needs beyond its mode: the runner to use, extra environment, and whether the CI rule is lifted. */
export interface RunnerRun {
  tags?: readonly string[];
  chosen?: RunnerName | undefined;
  env?: Record<string, string>;
}

/**
 * Starts the project's runner (Jest or Vitest) in `mode` after the checks the environment would
 * make anyway (no CI, a key); resolves with its exit code (1 for a runner killed by a signal), and
 * `ran: false` when it did not start, having said why.
 */
export function runRunner(
  mode: UnderstudyMode,
  command: string,
  jestArgs: string[],
  { tags = [], chosen, env = {} }: RunnerRun = {},
): Promise<{ code: number; ran: boolean; runner?: RunnerName }> {
  const usage = (message: string) => {
    process.stderr.write(`understudy ${command}: ${message}\n`);
    return Promise.resolve({ code: 2, ran: false });
  };
  const refusal = ciRefusal(mode, `understudy ${command}`, { ...process.env, ...env });
  if (refusal) return usage(refusal.replace(/^jest-understudy: /, ''));
  if (mode !== 'record-missing' && realKeys(process.env).length === 0)
    return usage(noKeyMessage(mode, `understudy ${command}`).replace(/^jest-understudy: /, ''));
  const detected = chosen ? { runner: chosen, why: '--runner' } : detectRunner(process.cwd());
  if ('problem' in detected) return usage(detected.problem);
  const { runner } = detected;
  const start = runnerCommand(runner, process.cwd());
  if (!start)
    return usage(
      `cannot find ${runner === 'jest' ? 'Jest' : 'Vitest'}: install it in this project (npm i -D ${runner})`,
    );
  const selection = tags.length > 0 ? `, only tests tagged ${tags.map((t) => `@${t}`).join(' or ')}` : '';
  process.stderr.write(
    `understudy ${command}: running ${runner} (${detected.why}) in ${mode} mode (UNDERSTUDY_MODE=${mode})${selection}\n`,
  );
  const child = spawn(process.execPath, [start.bin, ...start.args, ...jestArgs], {
    stdio: 'inherit',
    env: {
      ...process.env,
      ...env,
      UNDERSTUDY_MODE: mode,
      ...(tags.length > 0 ? { UNDERSTUDY_TAGS: tags.join(',') } : {}),
    },
  });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`understudy ${command}: cannot start ${runner}: ${error.message}\n`);
      resolve({ code: 2, ran: false, runner });
    });
    child.on('close', (code, signal) => resolve({ code: signal ? 1 : (code ?? 1), ran: true, runner }));
  });
}

async function runJest(
  mode: UnderstudyMode,
  command: string,
  jestArgs: string[],
  tags: readonly string[] = [],
  chosen?: RunnerName,
): Promise<void> {
  const { code, ran } = await runRunner(mode, command, jestArgs, { tags, chosen });
  // The runner's own failure (tests failed) is this command's: the recording did not complete.
  process.exitCode = !ran ? 2 : code === 0 ? 0 : 1;
}

/** Jest's full name of a test (`describe it`) from the label a cassette gives it (`describe > it`). */
const jestName = (label: string) => label.split(' > ').join(' ');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The Jest arguments that re-record the tests whose cassette fixtures the last replay found
 * stale: their files, and a `-t` pattern naming exactly those tests. Undefined when none was.
 */
export function staleArguments(root: string): { args: string[]; tests: number; files: number } | undefined {
  const files = new Set<string>();
  const tests = new Set<string>();
  for (const record of readUsage(root))
    for (const note of record.stale ?? []) {
      const test = note.test ?? note.recordedIn;
      if (!test) continue;
      files.add(record.testPath);
      tests.add(test);
    }
  if (tests.size === 0) return undefined;
  return { args: testsArguments(files, tests), tests: tests.size, files: files.size };
}

/** The runner arguments that run exactly `tests` (as a cassette names them) in `files`. */
export function testsArguments(files: Iterable<string>, tests: Iterable<string>): string[] {
  const pattern = `^(?:${[...tests].map((t) => escapeRegExp(jestName(t))).join('|')})$`;
  return [...[...files].sort().map((f) => relative(process.cwd(), f) || f), '-t', pattern];
}

async function fail(command: string, message: string): Promise<void> {
  process.stderr.write(`understudy ${command}: ${message}\n`);
  process.exitCode = 2;
}

const runnerOption = () =>
  new Option(
    '--runner <runner>',
    "the test runner to run (default: the project's, from its config file, test script or dependencies)",
  ).choices(RUNNER_NAMES);

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description(
      'run the tests (Jest or Vitest) in record mode: every model call goes to the real provider, and each test file writes its cassette (local only)',
    )
    .argument('[jest-args...]', 'arguments for the test runner, after --')
    .option('--missing', 'record only the requests no fixture matches, appending them (record-missing mode)')
    .option(
      '--stale',
      're-record only the tests whose cassette fixtures the last replay found stale (from .understudy/usage)',
    )
    .option('--root <dir>', 'the Jest rootDir, where .understudy/usage lives (with --stale)', '.')
    .addOption(runnerOption())
    .option(
      '--tag <tag...>',
      're-record only the tests with one of these tags (@understudy-tags in the file docblock, @tag in a test or describe title); the others are skipped and keep their fixtures',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  understudy record -- test/refunds.test.ts\n  understudy record -- test/refunds.test.ts -t "refunds twice"\n' +
        '  understudy record --missing -- -t "refund"\n  understudy record --stale\n  understudy record --tag cassette-v3\n\n' +
        "Record mode re-records the tests that ran and keeps the other tests' fixtures in each cassette.\n" +
        'Refused when CI is set. Needs the provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY).\n' +
        'Exit codes: 0 recorded, 1 Jest failed (nothing is written for a failing test file), 2 bad usage.',
    )
    .action(
      (
        jestArgs: string[],
        options: { missing?: boolean; stale?: boolean; root: string; tag?: string[]; runner?: RunnerName },
      ) => {
        const tags = (options.tag ?? []).flatMap((t) => t.split(',')).map((t) => t.replace(/^@/, '').trim());
        const bad = tags.find((t) => !/^[\w.:-]+$/.test(t));
        if (bad !== undefined)
          return fail(
            'record',
            `--tag ${JSON.stringify(bad)} is not a tag: letters, digits, _ . : - (e.g. --tag cassette-v3)`,
          );
        if (tags.length > 0 && options.stale)
          return fail('record', '--tag and --stale each choose the tests to re-record; give one of them');
        if (!options.stale)
          return runJest(
            options.missing ? 'record-missing' : 'record',
            'record',
            jestArgs,
            tags,
            options.runner,
          );
        if (options.missing)
          return fail('record', '--stale re-records whole tests; it does not go with --missing');
        const root = resolve(process.cwd(), options.root);
        const stale = staleArguments(root);
        if (!stale) {
          process.stdout.write(
            `understudy record --stale: no stale cassette fixture in the last run (${relative(process.cwd(), join(root, '.understudy', 'usage')) || '.'}); nothing to record\n`,
          );
          return Promise.resolve();
        }
        process.stderr.write(
          `understudy record --stale: re-recording ${stale.tests} test${stale.tests === 1 ? '' : 's'} in ${stale.files} file${stale.files === 1 ? '' : 's'}\n`,
        );
        return runJest('record', 'record', [...stale.args, ...jestArgs], [], options.runner);
      },
    );
}
