/**
 * `understudy record -- <jest args>` and `understudy live -- <jest args>`: run Jest with
 * UNDERSTUDY_MODE set, after the checks the environment would make anyway (no CI, a key),
 * so a misuse fails in a second with exit code 2 instead of after Jest starts.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ciRefusal, noKeyMessage, realKeys, type UnderstudyMode } from '../../record/mode';

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
    .addHelpText(
      'after',
      '\nExamples:\n  understudy record -- test/refunds.test.ts\n  understudy record --missing -- -t "refund"\n\n' +
        'Refused when CI is set. Needs the provider key (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY).\n' +
        'Exit codes: 0 recorded, 1 Jest failed (nothing is written for a failing test file), 2 bad usage.',
    )
    .action((jestArgs: string[], options: { missing?: boolean }) =>
      runJest(options.missing ? 'record-missing' : 'record', 'record', jestArgs),
    );

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
