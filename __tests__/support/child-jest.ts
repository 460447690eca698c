import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromSource, preset, root } from '../../scripts/jest-options.cjs';

export { root };

export interface ChildTest {
  title: string;
  fullName: string;
  status: string;
  failureMessages: string[];
}

export interface ChildFile {
  name: string;
  /** The file-level failure (a suite that failed to run, errors outside tests). */
  message: string;
  /** The per-file counts the preset's test runner attaches for the reporter. */
  understudy?: any;
  tests: ChildTest[];
}

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  files: ChildFile[];
  /** This run's temp folder (traces go in `traces/` here). */
  dir: string;
}

export interface ChildOptions {
  /** testMatch patterns relative to the repository root (or absolute). */
  testMatch: string[];
  /** Extra folders to look for tests in (besides the repository). */
  roots?: string[];
  understudy?: Record<string, unknown>;
  /** Use the repository's reporter besides the JSON output. */
  reporter?: boolean;
  args?: string[];
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
}

/** The folders this test file's child runs made: removed when the file's tests are done. */
const childDirs: string[] = [];
if (typeof afterAll === 'function')
  afterAll(() => {
    for (const dir of childDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

/**
 * Runs test files in a child Jest configured like the preset (the repository's environment,
 * test runner, setup file and, on request, reporter, all from source: scripts/jest-options.cjs),
 * as a user's project would: some behaviours (a test failed by the environment, a trace, the reporter's summary)
 * can only be seen from outside the run. Asynchronous, so a server the parent test runs
 * (a fake upstream) keeps answering meanwhile.
 */
export function runJest(options: ChildOptions): Promise<ChildRun> {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-child-'));
  childDirs.push(dir);
  const config = {
    rootDir: root,
    // One id for every child run from source: Jest keys its transform cache by it (and the
    // transform's cache key leaves out the per-run options, see scripts/jest-transform.cjs), so
    // a child compiles only the sources that changed since an earlier one.
    id: 'understudy-source-child',
    // …which is also where Jest keeps earlier runs' durations, which would set the files' order.
    testSequencer: '<rootDir>/__tests__/support/first-run-sequencer.cjs',
    testMatch: options.testMatch.map((p) => (p.startsWith('/') ? p : `<rootDir>/${p}`)),
    roots: ['<rootDir>', ...(options.roots ?? [])],
    ...fromSource,
    ...preset,
    // Each run keeps its own history, so one run's flaky tests never show in another's summary.
    testEnvironmentOptions: {
      understudy: {
        traceDir: join(dir, 'traces'),
        history: { path: join(dir, 'history.jsonl') },
        ...options.understudy,
      },
    },
    reporters: options.reporter
      ? ['default', '<rootDir>/__tests__/support/source-reporter.cjs']
      : ['default'],
    // A child's first test compiles and loads everything cold; on a loaded CI machine that alone can
    // pass Jest's 5 s default. No case tests the timeout itself.
    testTimeout: 30_000,
  };
  const configPath = join(dir, 'jest.config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  return spawnJest({
    jest,
    cwd: root,
    dir,
    args: ['--config', configPath, ...(options.args ?? [])],
    env: { NODE_OPTIONS: '--experimental-vm-modules', ...options.env },
  });
}

export interface SpawnOptions {
  /** The jest.js to run. */
  jest: string;
  cwd: string;
  /** Where the JSON results go (and what the run reports as its folder). */
  dir: string;
  args: string[];
  /** When `jest` is a wrapper (the `understudy` CLI): its arguments, before Jest's own. */
  command?: string[];
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** A command the child runs under, given node and its arguments (e.g. a network namespace). */
  prefix?: string[];
  /** The time bound, when not CHILD_JEST_TIMEOUT_MS (a run of many projects takes longer). */
  timeoutMs?: number;
}

/**
 * A child Jest still running after this long is killed and its run fails with what it printed: a
 * hung child must end, not hold its parent's worker (and the suite) until CI gives up. Longer than
 * any parent test's own timeout, which fails the test first.
 */
const CHILD_JEST_TIMEOUT_MS = 300_000;

/** What a child process printed, how it ended, and whether the time bound killed it. */
export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs `node <argv>` (under `prefix` when given) with `env` merged over this process's (colour
 * off, GitHub Actions' variables removed; `undefined` removes a variable), killed after `timeoutMs` (default CHILD_JEST_TIMEOUT_MS).
 */
export function runChild(
  argv: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; prefix?: string[]; timeoutMs?: number },
): Promise<ChildOutput> {
  const bound = options.timeoutMs ?? CHILD_JEST_TIMEOUT_MS;
  const env: Record<string, string> = {};
  // A child writes no annotations or job summary into the CI job running this suite, unless asked to.
  const github = { GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined, GITHUB_WORKSPACE: undefined };
  const merged = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...github, ...options.env };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) env[k] = v;
  const [command, ...before] = options.prefix ?? [process.execPath];
  const args = options.prefix ? [...before, process.execPath, ...argv] : argv;
  const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, bound);
  timer.unref();
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut });
    });
  });
}

/** Jest's `--json` results (and Vitest's JSON reporter, which writes the same shape), per file and test. */
export function filesOf(results: {
  testResults: Array<{ name: string; message: string; understudy?: unknown; assertionResults: any[] }>;
}): ChildFile[] {
  return results.testResults.map((r) => ({
    name: r.name,
    message: r.message,
    understudy: r.understudy,
    tests: r.assertionResults.map((a) => ({
      title: a.title,
      fullName: a.fullName,
      status: a.status,
      failureMessages: a.failureMessages,
    })),
  }));
}

/** Spawns a child Jest with `--json` output and collects its per-file, per-test results. */
export async function spawnJest(options: SpawnOptions): Promise<ChildRun> {
  const out = join(options.dir, 'results.json');
  // `--ci` first: a caller's own `--ci=false` (a test that writes snapshots) must win.
  const argv = [
    options.jest,
    ...(options.command ?? []),
    '--ci',
    '--json',
    '--outputFile',
    out,
    ...options.args,
  ];
  const { code, stdout, stderr, timedOut } = await runChild(argv, options);
  if (timedOut)
    throw new Error(
      `the child Jest was killed after ${(options.timeoutMs ?? CHILD_JEST_TIMEOUT_MS) / 1000} s:\n${stdout}\n${stderr}`,
    );
  let results: Parameters<typeof filesOf>[0];
  try {
    results = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    throw new Error(`the child Jest wrote no results (exit ${code}):\n${stderr}`);
  }
  return { code, stdout, stderr, dir: options.dir, files: filesOf(results) };
}
