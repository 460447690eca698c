/**
 * `understudy record -- <jest args>` and `understudy live -- <jest args>`: run Jest with
 * UNDERSTUDY_MODE set, after the checks the environment would make anyway (no CI, a key),
 * so a misuse fails in a second with exit code 2 instead of after Jest starts.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { ciRefusal, noKeyMessage, realKeys, type UnderstudyMode } from '../../record/mode';
import { readUsage } from '../../record/usage';

/** Jest's CLI as the project in the working directory has it, else as this package resolves it. */
function jestBin(): string | undefined {
  for (const from of [join(process.cwd(), 'package.json'), __filename]) {
    try {
      return createRequire(from).resolve('jest/bin/jest');
    } catch {
      // try the next place
    }
  }
  return undefined;
}

function runJest(mode: UnderstudyMode, command: string, jestArgs: string[]): Promise<void> {
  const refusal = ciRefusal(mode, `understudy ${command}`, process.env);
  if (refusal) return fail(command, refusal.replace(/^jest-understudy: /, ''));
  if (mode !== 'record-missing' && realKeys(process.env).length === 0)
    return fail(command, noKeyMessage(mode, `understudy ${command}`).replace(/^jest-understudy: /, ''));
  const bin = jestBin();
  if (!bin) return fail(command, 'cannot find Jest: install it in this project (npm i -D jest)');
  process.stderr.write(`understudy ${command}: running jest in ${mode} mode (UNDERSTUDY_MODE=${mode})\n`);
  const child = spawn(process.execPath, [bin, ...jestArgs], {
    stdio: 'inherit',
    env: { ...process.env, UNDERSTUDY_MODE: mode },
  });
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`understudy ${command}: cannot start jest: ${error.message}\n`);
      process.exitCode = 2;
      resolve();
    });
    child.on('close', (code, signal) => {
      // Jest's own failure (tests failed) is this command's: the recording did not complete.
      process.exitCode = signal ? 1 : code === 0 ? 0 : 1;
      resolve();
    });
  });
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
  const pattern = `^(?:${[...tests].map((t) => escapeRegExp(jestName(t))).join('|')})$`;
  return {
    args: [...[...files].sort().map((f) => relative(process.cwd(), f) || f), '-t', pattern],
    tests: tests.size,
    files: files.size,
  };
}

async function fail(command: string, message: string): Promise<void> {
  process.stderr.write(`understudy ${command}: ${message}\n`);
  process.exitCode = 2;
}

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description(
      'run Jest in record mode: every model call goes to the real provider, and each test file writes its cassette (local only)',
    )
    .argument('[jest-args...]', 'arguments for Jest, after --')
    .option('--missing', 'record only the requests no fixture matches, appending them (record-missing mode)')
    .option(
      '--stale',
      're-record only the tests whose cassette fixtures the last replay found stale (from .understudy/usage)',
    )
    .option('--root <dir>', 'the Jest rootDir, where .understudy/usage lives (with --stale)', '.')
    .addHelpText(
      'after',
      '\nExamples:\n  understudy record -- test/refunds.test.ts\n  understudy record -- test/refunds.test.ts -t "refunds twice"\n' +
        '  understudy record --missing -- -t "refund"\n  understudy record --stale\n\n' +
        "Record mode re-records the tests that ran and keeps the other tests' fixtures in each cassette.\n" +
        'Refused when CI is set. Needs the provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY).\n' +
        'Exit codes: 0 recorded, 1 Jest failed (nothing is written for a failing test file), 2 bad usage.',
    )
    .action((jestArgs: string[], options: { missing?: boolean; stale?: boolean; root: string }) => {
      if (!options.stale) return runJest(options.missing ? 'record-missing' : 'record', 'record', jestArgs);
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
      return runJest('record', 'record', [...stale.args, ...jestArgs]);
    });

  program
    .command('live')
    .description(
      'run Jest in live mode: model calls go to the real provider, nothing is written (local only)',
    )
    .argument('[jest-args...]', 'arguments for Jest, after --')
    .addHelpText(
      'after',
      '\nRefused when CI is set. Exit codes: 0 tests passed, 1 tests failed, 2 bad usage.',
    )
    .action((jestArgs: string[]) => runJest('live', 'live', jestArgs));
}
