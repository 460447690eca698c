import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(__dirname, '..', '..');

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  files: Array<{
    file: string;
    message: string;
    tests: Array<{ title: string; status: string; failureMessages: string[] }>;
  }>;
}

/**
 * Runs case files in a child Jest with the repository's environment, like run-cases.ts but
 * without blocking: the fake upstream served by the parent test keeps answering meanwhile.
 */
export function runJest(options: {
  cases: string[];
  env?: Record<string, string | undefined>;
  understudy?: Record<string, unknown>;
  args?: string[];
}): Promise<ChildResult> {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-child-'));
  const config = {
    rootDir: root,
    testMatch: options.cases.map((c) => `<rootDir>/__tests__/record/cases/${c}`),
    transform: {
      '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    },
    moduleNameMapper: {
      '^jest-understudy$': '<rootDir>/src/index.ts',
      '^jest-understudy/matchers$': '<rootDir>/matchers/index.ts',
    },
    testEnvironment: '<rootDir>/environment/index.ts',
    setupFilesAfterEnv: ['<rootDir>/presets/setup.ts'],
    testEnvironmentOptions: { understudy: { traces: 'off', ...options.understudy } },
  };
  const configPath = join(dir, 'jest.config.json');
  const out = join(dir, 'results.json');
  writeFileSync(configPath, JSON.stringify(config));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    ...process.env,
    NODE_OPTIONS: '--experimental-vm-modules',
    ...options.env,
  }))
    if (v !== undefined) env[k] = v;
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--config',
      configPath,
      '--json',
      '--outputFile',
      out,
      '--runInBand',
      ...(options.args ?? []),
    ],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      let parsed: { testResults: Array<{ name: string; message: string; assertionResults: any[] }> };
      try {
        parsed = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        fail(new Error(`the child Jest wrote no results (exit ${code}):\n${stderr}`));
        return;
      }
      done({
        code,
        stdout,
        stderr,
        files: parsed.testResults.map((r) => ({
          file: r.name,
          message: r.message,
          tests: r.assertionResults.map((a) => ({
            title: a.title,
            status: a.status,
            failureMessages: a.failureMessages,
          })),
        })),
      });
    });
  });
}
