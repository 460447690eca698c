import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(__dirname, '..', '..');

export interface ChildTest {
  title: string;
  fullName: string;
  status: string;
  failureMessages: string[];
}

export interface ChildRun {
  status: number | null;
  stderr: string;
  stdout: string;
  files: Array<{ name: string; message: string; understudy?: any; tests: ChildTest[] }>;
  /** The temp folder of this run (traces go in `traces/` here). */
  dir: string;
}

export interface ChildOptions {
  /** testMatch patterns relative to the repository root (or absolute). */
  testMatch: string[];
  /** Extra folders to look for tests in (besides the repository). */
  roots?: string[];
  understudy?: Record<string, unknown>;
  /** Use the repository's reporter (from source) besides the JSON output. */
  reporter?: boolean;
  args?: string[];
  env?: Record<string, string>;
}

/**
 * Runs test files in a child Jest configured like the preset (the repository's
 * environment, test runner and, on request, reporter, all from source), with traces
 * written under a temp folder.
 */
export function runJest(options: ChildOptions): ChildRun {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-evidence-'));
  const config = {
    rootDir: root,
    testMatch: options.testMatch.map((p) => (p.startsWith('/') ? p : `<rootDir>/${p}`)),
    roots: ['<rootDir>', ...(options.roots ?? [])],
    transform: {
      '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
    },
    moduleNameMapper: {
      '^jest-understudy$': '<rootDir>/src/index.ts',
      '^jest-understudy/matchers$': '<rootDir>/matchers/index.ts',
    },
    testEnvironment: '<rootDir>/environment/index.ts',
    testRunner: '<rootDir>/presets/test-runner.ts',
    setupFilesAfterEnv: ['<rootDir>/presets/setup.ts'],
    testEnvironmentOptions: { understudy: { traceDir: join(dir, 'traces'), ...options.understudy } },
    reporters: options.reporter ? ['default', '<rootDir>/src/reporter/index.ts'] : ['default'],
    fakeTimers: { doNotFake: ['queueMicrotask'] },
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
      ...(options.args ?? []),
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_OPTIONS: '--experimental-vm-modules',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        ...options.env,
      },
    },
  );
  let parsed: {
    testResults: Array<{ name: string; message: string; understudy?: unknown; assertionResults: any[] }>;
  };
  try {
    parsed = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`the child Jest wrote no results (exit ${child.status}):\n${child.stderr}`);
  }
  return {
    status: child.status,
    stderr: child.stderr,
    stdout: child.stdout,
    dir,
    files: parsed.testResults.map((r) => ({
      name: r.name,
      message: r.message,
      understudy: r.understudy,
      tests: r.assertionResults.map((a) => ({
        title: a.title,
        fullName: a.fullName,
        status: a.status,
        failureMessages: a.failureMessages,
      })),
    })),
  };
}
