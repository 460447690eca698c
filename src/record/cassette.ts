/**
 * A cassette is a fixture file with recording metadata. Record mode overwrites a test
 * file's cassette with the file's recorded calls; record-missing mode appends the calls
 * no fixture matched to it, keeping what it had.
 */
import { existsSync, readFileSync } from 'node:fs';
import { formatOf, parseFixtureText } from '../fixtures/format';
import { loadFixtures } from '../fixtures/load';
import { cassetteMetadata } from '../fixtures/metadata';
import type { Fixture } from '../fixtures/types';
import { validateFixtureFile } from '../fixtures/validate';
import { writeFixtures } from '../fixtures/write';
import type { RecordedCall } from './build';

export { cassettePathOf } from './paths';

/** The top-level `metadata` of an existing fixture file, if it has one. */
export function readFileMetadata(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  const format = formatOf(path);
  if ('issue' in format) return undefined;
  const parsed = parseFixtureText(readFileSync(path, 'utf8'), format.format, path);
  if ('issue' in parsed) return undefined;
  const data = parsed.data as { metadata?: unknown } | null;
  const meta = data && !Array.isArray(data) ? data.metadata : undefined;
  return meta && typeof meta === 'object' && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

export interface CassetteWrite {
  mode: 'record' | 'record-missing';
  calls: readonly RecordedCall[];
  /** Keep the fixtures already in the file and add these after them. */
  append: boolean;
}

/** Writes (or appends to) a cassette; returns the path, or undefined when there was nothing to add. */
export function writeCassette(
  path: string,
  fixtures: readonly Fixture[],
  how: CassetteWrite,
): string | undefined {
  if (how.append) {
    if (fixtures.length === 0) return undefined;
    const existing = existsSync(path) ? loadFixtures(path) : [];
    const previous = readFileMetadata(path);
    const all = [...existing, ...fixtures];
    return writeFixtures(path, all, { metadata: cassetteMetadata(all, previous ?? {}, how.mode) });
  }
  return writeFixtures(path, fixtures, { metadata: cassetteMetadata(fixtures, undefined, how.mode) });
}

/**
 * Loads what writing a cassette needs (the fixture schema's validator compiles on first
 * use, and loads ajv then), for a file whose cassette is written after its last test.
 */
export function prepareCassetteWriter(): void {
  validateFixtureFile({ fixtures: [] }, { file: 'cassette' });
}
