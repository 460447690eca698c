import { Command } from 'commander';
import { COMMANDS } from './commands';

/**
 * The `understudy` CLI. Each command lives in its own module under ./commands and
 * registers itself on the program; exit codes: 0 ok, 1 the check failed, 2 bad usage.
 */
export function buildProgram(): Command {
  const program = new Command('understudy')
    .description(
      'jest-understudy: validate files, render traces, record and check fixtures, bridge tools to a served test',
    )
    .showHelpAfterError()
    .exitOverride((err) => {
      // --help and --version are successes; usage errors exit 2 like other CLIs.
      process.exit(err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2);
    });
  for (const register of COMMANDS) register(program);
  return program;
}
