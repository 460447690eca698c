/**
 * Runs an agent that lives in another process, as a test starts one: a command with the
 * served port's environment, its output collected, its exit code kept (a child that fails
 * must not look like one that answered).
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { SOURCE_CLI } from '../../__tests__/support/source';

export interface ChildResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runChild(
  command: string,
  args: readonly string[],
  options: { env: Readonly<Record<string, string>>; cwd?: string; signal?: AbortSignal },
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: { ...process.env, ...options.env },
        // A backstop past every test's own timeout: a hung agent is killed, not left running.
        timeout: 180_000,
        killSignal: 'SIGKILL',
        ...(options.cwd && { cwd: options.cwd }),
        ...(options.signal && { signal: options.signal }),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The Python to run the agent with: UNDERSTUDY_PYTHON, else the virtualenv `.ci/run` makes
 * (`.venv-python`, with `openai` and `anthropic`), else the machine's python3.
 */
export function python(): string {
  if (process.env.UNDERSTUDY_PYTHON) return process.env.UNDERSTUDY_PYTHON;
  const venv = join(__dirname, '..', '..', '.venv-python', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

let binDir: string | undefined;

/**
 * PATH with the `understudy` command first, as `npm exec` or a project's scripts would have it:
 * in this repository a wrapper that runs the CLI from source.
 */
export function pathWithCli(): string {
  if (!binDir) {
    binDir = mkdtempSync(join(tmpdir(), 'understudy-bin-'));
    const wrapper = join(binDir, 'understudy');
    const command = [process.execPath, ...SOURCE_CLI].map((arg) => `"${arg}"`).join(' ');
    writeFileSync(wrapper, `#!/bin/sh\nNODE_OPTIONS= exec ${command} "$@"\n`);
    chmodSync(wrapper, 0o755);
  }
  return `${binDir}${delimiter}${process.env.PATH ?? ''}`;
}
