import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

export interface CaseResult {
  file: string;
  failureMessage: string;
  tests: Array<{ title: string; status: string; failureMessages: string[] }>;
}

/**
 * Runs __tests__/world/cases/<pattern> in a child Jest with the repository's environment and
 * `--maxWorkers=2` (as __tests__/environment/run-cases.ts does, with parallel workers).
 */
export function runWorldCases(pattern: string, env: Record<string, string> = {}): CaseResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-world-cases-'));
  const config = {
    rootDir: root,
    testMatch: [`<rootDir>/__tests__/world/cases/${pattern}`],
    transform: {
      '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    },
    moduleNameMapper: { '^jest-understudy$': '<rootDir>/src/index.ts' },
    testEnvironment: '<rootDir>/environment/index.ts',
    setupFilesAfterEnv: ['<rootDir>/presets/setup.ts'],
  };
  const configPath = join(dir, 'jest.config.json');
  const out = join(dir, 'results.json');
  writeFileSync(configPath, JSON.stringify(config));
  const child = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--config',
      configPath,
      '--json',
      '--outputFile',
      out,
      '--ci',
      '--maxWorkers=2',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...env, NODE_OPTIONS: '--experimental-vm-modules' },
    },
  );
  let parsed: { testResults: Array<{ name: string; message: string; assertionResults: any[] }> };
  try {
    parsed = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`the child Jest wrote no results (exit ${child.status}):\n${child.stderr}`);
  }
  return parsed.testResults.map((r) => ({
    file: r.name,
    failureMessage: r.message,
    tests: r.assertionResults.map((a) => ({
      title: a.title,
      status: a.status,
      failureMessages: a.failureMessages,
    })),
  }));
}
