/**
 * `understudy fixtures check [dirs...]`: the drift check CI runs after the tests. A fixture
 * file that is modified, added, deleted or untracked in git means a recording changed and
 * was not reviewed and committed (git status sees untracked files, which git diff misses).
 * `--unused` also lists fixtures no test used in the last run of each test file. Cassette
 * fixtures that the last replay found stale (the request changed, or they aged past
 * `cassetteMaxAge`) are listed too, from the same usage notes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { globSync } from 'tinyglobby';
import { loadFixtures } from '../../fixtures/load';
import { sourceOf } from '../../fixtures/types';
import { readUsage, USAGE_DIR } from '../../record/usage';

/** What counts as a fixture file when no folder is named. */
const FIXTURE_FILE = /(?:\.(?:fixture|fixtures|cassette)\.(?:json|ya?ml)|[\\/]__cassettes__[\\/].+)$/;
const FIXTURE_GLOBS = [
  '**/*.{fixture,fixtures,cassette}.{json,yaml,yml}',
  '**/__cassettes__/**/*.{json,yaml,yml}',
];
const IGNORE = ['**/node_modules/**', '**/.git/**', '**/dist/**', '**/.understudy/**'];

interface Drift {
  state: 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked' | 'conflicted';
  path: string;
}

function git(args: string[], cwd: string) {
  return spawnSync('git', args, { cwd, encoding: 'utf8' });
}

function stateOf(xy: string): Drift['state'] {
  if (xy === '??') return 'untracked';
  if (xy.includes('U') || xy === 'AA' || xy === 'DD') return 'conflicted';
  if (xy.includes('R') || xy.includes('C')) return 'renamed';
  if (xy.includes('D')) return 'deleted';
  if (xy.includes('A')) return 'added';
  return 'modified';
}

/** `git status --porcelain -z`, entries under the given paths (all of them when none is given). */
function driftOf(cwd: string, dirs: string[]): Drift[] | string {
  const top = git(['rev-parse', '--show-toplevel'], cwd);
  if (top.status !== 0) return `${cwd} is not inside a git repository (${top.stderr.trim() || 'git failed'})`;
  const root = top.stdout.trim();
  const status = git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...dirs], cwd);
  if (status.status !== 0) return `git status failed: ${status.stderr.trim()}`;
  const parts = status.stdout.split('\0');
  const out: Drift[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i];
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    const path = resolve(root, entry.slice(3));
    if (xy[0] === 'R' || xy[0] === 'C') i++; // the original path follows
    if (dirs.length === 0 && !FIXTURE_FILE.test(path)) continue;
    out.push({ state: stateOf(xy), path });
  }
  return out;
}

const shown = (path: string) => relative(process.cwd(), path) || path;

function describeFixture(fixture: { match?: { userMessage?: unknown; turnIndex?: unknown } }): string {
  const m = fixture.match ?? {};
  const parts: string[] = [];
  if (typeof m.userMessage === 'string')
    parts.push(
      `userMessage ${JSON.stringify(m.userMessage.length > 50 ? `${m.userMessage.slice(0, 50)}…` : m.userMessage)}`,
    );
  if (typeof m.turnIndex === 'number') parts.push(`turnIndex ${m.turnIndex}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** Fixtures in the named folders (or the fixture files below the working directory) that no test used. */
function unusedFixtures(dirs: string[], root: string): { lines: string[]; count: number } | string {
  const usage = readUsage(root);
  if (usage.length === 0)
    return (
      `no usage records in ${shown(join(root, USAGE_DIR))}: run the tests (in replay mode) first; ` +
      'each test file notes there which fixtures answered its requests'
    );
  const used = new Map<string, Set<string>>();
  for (const record of usage)
    for (const [file, paths] of Object.entries(record.fixtures)) {
      const set = used.get(file) ?? new Set<string>();
      for (const p of paths) set.add(p);
      used.set(file, set);
    }
  const files = new Set<string>();
  const patterns =
    dirs.length > 0 ? dirs.map((d) => `${d.replace(/\/+$/, '')}/**/*.{json,yaml,yml}`) : FIXTURE_GLOBS;
  for (const f of globSync(patterns, { absolute: true, ignore: IGNORE })) files.add(resolve(f));
  if (dirs.length === 0) for (const f of used.keys()) if (existsSync(f)) files.add(f);
  const lines: string[] = [];
  let count = 0;
  for (const file of [...files].sort()) {
    let fixtures: ReturnType<typeof loadFixtures>;
    try {
      fixtures = loadFixtures(file);
    } catch {
      continue; // not a fixture file (or a broken one: `understudy validate` reports those)
    }
    const paths = used.get(file) ?? new Set<string>();
    for (const fixture of fixtures) {
      const at = sourceOf(fixture)?.path ?? '';
      if (paths.has(at)) continue;
      count++;
      lines.push(`unused     ${shown(file)} ${at}${describeFixture(fixture)}`);
    }
  }
  return { lines, count };
}

/** Cassette fixtures the last run of each test file found stale, one line each. */
function staleFixtures(root: string, dirs: string[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  const within = dirs.map((d) => resolve(d));
  for (const record of readUsage(root))
    for (const note of record.stale ?? []) {
      if (within.length > 0 && !within.some((d) => note.file === d || note.file.startsWith(`${d}/`)))
        continue;
      const key = `${note.file}\u0000${note.path ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const test = note.test ?? note.recordedIn;
      lines.push(
        `stale      ${shown(note.file)}${note.path ? ` ${note.path}` : ''}${test ? ` (test "${test}")` : ''}: ${note.reason}`,
      );
    }
  return lines;
}

export function registerFixtures(program: Command): void {
  const fixtures = program.command('fixtures').description('check committed fixtures and cassettes');
  fixtures
    .command('check')
    .description(
      'fail when a fixture file is modified or untracked in git, or a cassette fixture was stale in the last run (run after the tests in CI); --unused lists fixtures no test used',
    )
    .argument(
      '[dirs...]',
      'folders (or files) to check; default: every *.fixture.*, *.cassette.* and __cassettes__ file',
    )
    .option(
      '--unused',
      'also list fixtures no test used in the last run of each test file (from .understudy/usage)',
    )
    .option('--root <dir>', 'the Jest rootDir, where .understudy/usage lives', '.')
    .addHelpText(
      'after',
      '\nIn CI, after the tests:\n  npx jest && npx understudy fixtures check test/fixtures\n\n' +
        'Exit codes: 0 no drift and no stale fixture (and, with --unused, every fixture used), 1 drift, stale or unused fixtures, 2 bad usage (not a git repository, no usage records).',
    )
    .action((dirs: string[], options: { unused?: boolean; root: string }) => {
      const cwd = process.cwd();
      for (const d of dirs)
        if (!existsSync(resolve(cwd, d))) {
          process.stderr.write(`understudy fixtures check: ${d} does not exist\n`);
          process.exitCode = 2;
          return;
        }
      const drift = driftOf(cwd, dirs);
      if (typeof drift === 'string') {
        process.stderr.write(`understudy fixtures check: ${drift}\n`);
        process.exitCode = 2;
        return;
      }
      for (const d of drift) process.stdout.write(`${d.state.padEnd(10)} ${shown(d.path)}\n`);
      let failed = drift.length > 0;
      if (failed)
        process.stdout.write(
          `\n${drift.length} fixture file${drift.length === 1 ? '' : 's'} changed since the last commit. ` +
            'Review the recording (no secrets, the calls you expect), commit it, and run again.\n',
        );
      const stale = staleFixtures(resolve(cwd, options.root), dirs);
      for (const line of stale) process.stdout.write(`${line}\n`);
      if (stale.length > 0) {
        failed = true;
        process.stdout.write(
          `\n${stale.length} cassette fixture${stale.length === 1 ? ' was' : 's were'} stale in the last run. ` +
            'Record those tests again (npx understudy record --stale), review the diff, and commit it.\n',
        );
      }
      if (options.unused) {
        const unused = unusedFixtures(dirs, resolve(cwd, options.root));
        if (typeof unused === 'string') {
          process.stderr.write(`understudy fixtures check --unused: ${unused}\n`);
          process.exitCode = 2;
          return;
        }
        for (const line of unused.lines) process.stdout.write(`${line}\n`);
        if (unused.count > 0) {
          failed = true;
          process.stdout.write(
            `\n${unused.count} fixture${unused.count === 1 ? '' : 's'} answered no request in the last run. ` +
              'Delete them, or add the test that needs them.\n',
          );
        }
      }
      if (!failed)
        process.stdout.write(
          `✓ no fixture drift${dirs.length ? ` in ${dirs.join(', ')}` : ''}${options.unused ? ', every fixture used' : ''}\n`,
        );
      process.exitCode = failed ? 1 : 0;
    });
}
