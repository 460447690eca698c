/**
 * Jest globalSetup of the e2e tier: builds and packs the package and installs the tarball into a
 * scratch consumer project (scripts/install-packed.cjs), so suites can run test files against the
 * installed package (see ./installed.ts). When UNDERSTUDY_INSTALLED_DIR names a project that
 * already has it installed (the CI consumer jobs, which `npm install` the tarball with other Node,
 * msw and SDK majors), that project is used instead.
 *
 * The project is kept between runs, keyed by a hash of everything the build and the tarball are
 * made from: the same sources are not built, packed or installed again. The folders a run makes
 * in the project start with a name of its own (UNDERSTUDY_INSTALLED_RUNS), and go at its end
 * (./unpack.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { root } from '../../scripts/jest-options.cjs';

const { installPacked } = require('../../scripts/install-packed.cjs') as {
  installPacked(options: { root: string; build?: boolean; dir?: string }): string;
};

/** What `npm run build` and `npm pack` read, besides node_modules (pinned by the lockfile). */
const INPUTS = [
  'src',
  'environment',
  'matchers',
  'schemas',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'jest-preset.js',
  'README.md',
];
/** The packed projects kept, newest first; older ones are removed. */
const KEEP = 3;
const CACHE = join(tmpdir(), 'understudy-packed');
const DAY = 24 * 60 * 60 * 1000;

/** A hash of the files below `paths` (relative to `base`): their paths and contents. */
function treeHash(base: string, paths: string[]): string {
  const hash = createHash('sha256');
  const visit = (path: string) => {
    const full = join(base, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(join(path, name));
      return;
    }
    hash
      .update(`${relative(base, full)}\0`)
      .update(readFileSync(full))
      .update('\0');
  };
  for (const path of paths) visit(path);
  return hash.digest('hex');
}

/** `npm run build`: the repository's dist/, which the package tests read. */
function build(): void {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The consumer project packed from these sources: the kept one, else a new one kept for next time. */
function packedProject(): string {
  const key = treeHash(root, INPUTS).slice(0, 24);
  const entry = join(CACHE, key);
  if (existsSync(entry)) {
    // The sources are the ones packed, but the repository's dist/ may have been built from others.
    if (readFileSync(join(entry, 'dist.sha256'), 'utf8') !== treeHash(root, ['dist'])) build();
    const now = new Date();
    utimesSync(entry, now, now);
    return join(entry, 'project');
  }
  mkdirSync(CACHE, { recursive: true });
  // Made beside the entry and renamed into place: a run that stops half-way leaves no entry.
  const staging = mkdtempSync(join(CACHE, `${key}.staging-`));
  installPacked({ root, dir: join(staging, 'project') });
  writeFileSync(join(staging, 'dist.sha256'), treeHash(root, ['dist']));
  try {
    renameSync(staging, entry);
  } catch {
    // Another run packed the same sources first: use its project.
    rmSync(staging, { recursive: true, force: true });
  }
  prune(entry);
  return join(entry, 'project');
}

/** Whether a process with this id is running (one another user runs included). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether a Jest run still going uses a kept project: its runs/ holds a name of that run
 * (`jest-<pid>-…`, see `runsPrefix`) and the process is alive. Runs of other checkouts share the
 * cache, and their sources differ: the project a run is using is never theirs to remove.
 */
function inUse(entry: string): boolean {
  const runs = join(entry, 'project', 'runs');
  if (!existsSync(runs)) return false;
  return readdirSync(runs).some((name) => {
    const pid = Number(/^jest-(\d+)-/.exec(name)?.[1]);
    return pid > 0 && pid !== process.pid && alive(pid);
  });
}

/**
 * Removes the kept projects but the KEEP last used (this run's among them) and those runs still
 * going use, and what runs left half-made.
 */
function prune(current: string): void {
  const entries = readdirSync(CACHE)
    .map((name) => join(CACHE, name))
    .map((path) => ({ path, time: statSync(path).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  let kept = 0;
  for (const { path, time } of entries) {
    if (path.includes('.staging-') ? Date.now() - time < DAY : path === current || ++kept < KEEP) continue;
    if (inUse(path)) continue;
    rmSync(path, { recursive: true, force: true });
  }
}

/**
 * This run's name for its folders in the project's runs/ (each `<name>-…`, at the depth the cases
 * expect: two folders below the project); what runs that ended without their teardown left goes.
 */
function runsPrefix(project: string): string {
  const runs = join(project, 'runs');
  mkdirSync(runs, { recursive: true });
  for (const name of readdirSync(runs)) {
    const path = join(runs, name);
    if (Date.now() - statSync(path).mtimeMs > DAY) rmSync(path, { recursive: true, force: true });
  }
  const prefix = join(runs, `jest-${process.pid}-${randomBytes(4).toString('hex')}`);
  // Says the project is in use from now to the run's end (./unpack.ts removes it with the run's folders).
  writeFileSync(`${prefix}-in-use`, '');
  return prefix;
}

export default function packAndInstall(): void {
  // The e2e and the installed projects both set this up: the first one does it for the run.
  if (process.env.UNDERSTUDY_INSTALLED_RUNS) return;
  process.env.UNDERSTUDY_INSTALLED_DIR ??= packedProject();
  process.env.UNDERSTUDY_INSTALLED_RUNS = runsPrefix(process.env.UNDERSTUDY_INSTALLED_DIR);
}
