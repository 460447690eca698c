/**
 * What a test file's tests ran, as one key: a digest of the test file's text and of every
 * fixture, world, golden and cassette file it loaded, by path relative to the rootDir (so shards
 * on other machines agree). The reporter keeps each test's history under it: a test is flaky
 * when it failed and passed on the same key, not when it was edited between two runs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';

const posix = (path: string) => path.split(sep).join('/');

export function codeKey(rootDir: string, testPath: string, sources: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  try {
    hash.update(readFileSync(testPath));
  } catch {
    hash.update('<unreadable>');
  }
  const read = [...sources].map(([file, digest]) => [posix(relative(rootDir, file)), digest] as const);
  read.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [file, digest] of read) hash.update(`\u0000${file}\u0000${digest}`);
  return `sha256:${hash.digest('hex').slice(0, 32)}`;
}
