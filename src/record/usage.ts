/**
 * Which fixtures answered, per test file: each test file writes its own record
 * (`.understudy/usage/<test path>.<hash>.json`) when it finishes, so parallel workers and
 * shards never write the same file; `understudy fixtures check --unused` reads them all.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { json, textForWriting, writeFile, writtenPath } from '../files/write';

export interface UsageRecord {
  /** The test file, relative to the folder the record lives under (the Jest rootDir). */
  testPath: string;
  finishedAt: string;
  /** Fixture file (relative, like testPath) → JSON paths of its fixtures that answered a request. */
  fixtures: Record<string, string[]>;
  /** Cassette fixtures that answered though stale (changed request, expired), for `understudy record --stale`. */
  stale?: StaleNote[];
}

/** A stale cassette fixture as a replay saw it. */
export interface StaleNote {
  /** The cassette (relative, like testPath). */
  file: string;
  /** The fixture's JSON path in it. */
  path?: string;
  /** The test the fixture was recorded in, and the test it answered in. */
  recordedIn?: string;
  test?: string;
  reason: string;
}

/** A record read back, with its paths made absolute again. */
export interface ResolvedUsage extends UsageRecord {
  root: string;
}

export const USAGE_DIR = join('.understudy', 'usage');

/** This test file's usage record: readable name, plus a hash of the project and path so none collide. */
export function usageFileOf(rootDir: string, testPath: string, projectId = ''): string {
  const below = relative(rootDir, testPath);
  const readable = (below.startsWith('..') ? basename(testPath) : below).replace(/[\\/:]+/g, '__');
  const hash = createHash('sha256').update(`${projectId}\u0000${testPath}`).digest('hex').slice(0, 8);
  return join(rootDir, USAGE_DIR, `${readable}.${hash}.json`);
}

/**
 * Writes this test file's record. A file that used no fixture file writes nothing, unless
 * an earlier run left a record that would now be wrong.
 */
export function writeUsage(
  file: string,
  testPath: string,
  used: ReadonlyMap<string, ReadonlySet<string>>,
  stale: readonly StaleNote[] = [],
): void {
  if (used.size === 0 && stale.length === 0 && !existsSync(file)) return;
  // Paths relative to the rootDir (two folders above the record), so records from CI shards merge.
  const root = dirname(dirname(dirname(file)));
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  const record: UsageRecord = {
    testPath: rel(testPath),
    finishedAt: new Date().toISOString(),
    fixtures: Object.fromEntries(
      [...used].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, paths]) => [rel(f), [...paths].sort()]),
    ),
    ...(stale.length > 0 && { stale: stale.map((n) => ({ ...n, file: rel(n.file) })) }),
  };
  // A suite run again writes the same records: one that says what the file on disk says is left as it is.
  const content = json(record);
  if (unchanged(writtenPath(file), textForWriting(content))) return;
  writeFile(file, content, { atomic: true });
}

/**
 * Whether `file` holds the record written as `text` already, whatever its `finishedAt`. The file
 * was written scrubbed, so it is read against the scrubbed text: one scrub, not one per side.
 */
function unchanged(file: string, text: string): boolean {
  let before: UsageRecord;
  try {
    before = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  const after = JSON.parse(text) as UsageRecord;
  return JSON.stringify({ ...before, finishedAt: after.finishedAt }) === JSON.stringify(after);
}

/**
 * Every usage record in `<root>/.understudy/usage` whose test file still exists (a deleted
 * test counts for nothing), with absolute paths.
 */
export function readUsage(root: string): ResolvedUsage[] {
  const dir = join(root, USAGE_DIR);
  if (!existsSync(dir)) return [];
  const out: ResolvedUsage[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const record = JSON.parse(readFileSync(join(dir, name), 'utf8')) as UsageRecord;
      if (typeof record?.testPath !== 'string' || typeof record.fixtures !== 'object') continue;
      const testPath = resolve(root, record.testPath);
      if (!existsSync(testPath)) continue;
      const fixtures: Record<string, string[]> = {};
      for (const [file, paths] of Object.entries(record.fixtures)) fixtures[resolve(root, file)] = paths;
      const stale = Array.isArray(record.stale)
        ? record.stale
            .filter((n) => typeof n?.file === 'string' && typeof n.reason === 'string')
            .map((n) => ({ ...n, file: resolve(root, n.file) }))
        : undefined;
      out.push({ root, testPath, finishedAt: record.finishedAt, fixtures, ...(stale && { stale }) });
    } catch {
      // a half-written or foreign file: skip it
    }
  }
  return out;
}
