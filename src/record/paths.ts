/** Where a test file's cassette lives; no heavy imports, the environment resolves it at start-up. */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * The cassette of a test file: `@understudy-cassette <path>` (relative to the test file),
 * else the one file an `@understudy-fixtures` pragma names, else
 * `<cassetteDir>/<test path below rootDir>.cassette.json` when `cassetteDir` is set, else
 * `__cassettes__/<test file name>.cassette.json` beside the test file (`.yaml` with
 * `cassetteFormat: 'yaml'`).
 */
export function cassettePathOf(options: {
  rootDir: string;
  testPath: string;
  cassetteDir?: string;
  pragmaCassette?: string;
  pragmaFixtures?: string[];
  /** The format a new cassette is written in (default json). */
  format?: 'json' | 'yaml';
}): string {
  const ext = options.format === 'yaml' ? 'yaml' : 'json';
  const testDir = dirname(options.testPath);
  if (options.pragmaCassette) return resolve(testDir, options.pragmaCassette);
  if (options.pragmaFixtures?.length === 1 && !/[*?[{]/.test(options.pragmaFixtures[0]))
    return resolve(testDir, options.pragmaFixtures[0]);
  if (options.cassetteDir) {
    const dir = isAbsolute(options.cassetteDir)
      ? options.cassetteDir
      : resolve(options.rootDir, options.cassetteDir);
    const below = relative(options.rootDir, options.testPath);
    const name = below.startsWith('..') ? basename(options.testPath) : below;
    return join(dir, `${name}.cassette.${ext}`);
  }
  return join(testDir, '__cassettes__', `${basename(options.testPath)}.cassette.${ext}`);
}

/**
 * Whether this test file replays its cassette: replay and record-missing modes load it when
 * something is at its path (record overwrites it, live ignores it). Whatever is there must
 * load as a fixture file, or the test file fails at start-up.
 */
export function replaysCassette(options: {
  mode: string;
  cassette: string;
  fixtures: readonly string[];
}): boolean {
  return (
    (options.mode === 'replay' || options.mode === 'record-missing') &&
    !options.fixtures.includes(options.cassette) &&
    existsSync(options.cassette)
  );
}
