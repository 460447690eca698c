/**
 * A cassette is a fixture file with recording metadata: one per test file, its fixtures
 * grouped by the test that recorded them (`metadata.test`). Record mode re-records the
 * groups of the tests that ran and keeps the others where they were; record-missing mode
 * adds the new fixtures after their test's group, keeping everything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { formatOf, parseFixtureText } from '../fixtures/format';
import { loadFixtures } from '../fixtures/load';
import { cassetteMetadata } from '../fixtures/metadata';
import { toFileData } from '../fixtures/serialize';
import type { Fixture } from '../fixtures/types';
import { validateFixtureFile } from '../fixtures/validate';
import { writeFixtures } from '../fixtures/write';

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

/** What writing a cassette did, for the reporter. */
export interface CassetteChange {
  path: string;
  /** `new`: the file did not exist; `updated`: its fixtures changed; `unchanged`: the same fixtures, recorded again. */
  state: 'new' | 'updated' | 'unchanged';
  added: number;
  removed: number;
  unchanged: number;
  /** Fixtures of tests that did not run, kept as they were. */
  kept: number;
}

export interface CassettePlan {
  mode: 'record' | 'record-missing';
  /** Tests that ran in this file (their groups are re-recorded in record mode). */
  ran: ReadonlySet<string>;
  /** Every test of the file ran: fixtures no test claims (older cassettes, file-level calls) are re-recorded too. */
  fullRun: boolean;
}

const groupOf = (f: Fixture): string | undefined =>
  typeof f.metadata?.test === 'string' ? f.metadata.test : undefined;

/** A fixture's content as a reviewer compares it: everything but its recording date. */
function contentOf(f: Fixture): string {
  const data = toFileData(f) as { metadata?: Record<string, unknown> };
  if (data.metadata) {
    const { recordedAt: _, ...rest } = data.metadata;
    data.metadata = rest;
  }
  return JSON.stringify(data);
}

/** The fixtures of the file to write, and what changed: `existing` is what the file holds now. */
export function mergeCassette(
  existing: readonly Fixture[],
  fresh: readonly Fixture[],
  plan: CassettePlan,
): { fixtures: Fixture[]; counts: Omit<CassetteChange, 'path' | 'state'> } {
  const freshGroups = new Map<string | undefined, Fixture[]>();
  for (const f of fresh) {
    const g = groupOf(f);
    freshGroups.set(g, [...(freshGroups.get(g) ?? []), f]);
  }
  const replaced = (g: string | undefined) =>
    plan.mode === 'record' &&
    (g === undefined ? plan.fullRun || freshGroups.has(undefined) : plan.ran.has(g));

  const out: Fixture[] = [];
  const placed = new Set<string | undefined>();
  let kept = 0;
  let removed = 0;
  let unchanged = 0;
  const oldOf = new Map<string | undefined, string[]>();
  for (const f of existing) {
    const g = groupOf(f);
    if (replaced(g)) {
      oldOf.set(g, [...(oldOf.get(g) ?? []), contentOf(f)]);
      if (!placed.has(g)) {
        out.push(...(freshGroups.get(g) ?? []));
        placed.add(g);
      }
      continue;
    }
    out.push(f);
    kept++;
    // record-missing: a test's new fixtures follow its last existing one.
    const next = existing[existing.indexOf(f) + 1];
    if (plan.mode === 'record-missing' && freshGroups.has(g) && (!next || groupOf(next) !== g)) {
      if (!placed.has(g)) out.push(...(freshGroups.get(g) ?? []));
      placed.add(g);
    }
  }
  for (const [g, list] of freshGroups) if (!placed.has(g)) out.push(...list);
  let added = 0;
  for (const [g, list] of freshGroups) {
    const old = [...(oldOf.get(g) ?? [])];
    for (const f of list) {
      const i = old.indexOf(contentOf(f));
      if (i === -1) added++;
      else {
        unchanged++;
        old.splice(i, 1);
      }
    }
  }
  for (const [g, old] of oldOf) {
    const freshContents = (freshGroups.get(g) ?? []).map(contentOf);
    removed += old.filter((c) => !freshContents.includes(c)).length;
  }
  return { fixtures: out, counts: { added, removed, unchanged, kept } };
}

/** The cassette's fixtures as they are on disk now (none when there is no file). */
export function readCassette(path: string): Fixture[] {
  return existsSync(path) ? loadFixtures(path) : [];
}

/** Writes the cassette with its file metadata; returns what changed. */
export function writeCassette(
  path: string,
  fixtures: readonly Fixture[],
  counts: Omit<CassetteChange, 'path' | 'state'>,
  mode: 'record' | 'record-missing',
): CassetteChange {
  const existed = existsSync(path);
  // Fixtures kept from the file are not tagged with what they were recorded from: its metadata says.
  const previous = existed && counts.kept > 0 ? readFileMetadata(path) : undefined;
  const written = writeFixtures(path, fixtures, { metadata: cassetteMetadata(fixtures, previous, mode) });
  const state = !existed ? 'new' : counts.added > 0 || counts.removed > 0 ? 'updated' : 'unchanged';
  return { path: written, state, ...counts };
}

/**
 * Loads what writing a cassette needs (the fixture schema's validator compiles on first
 * use, and loads ajv then), for a file whose cassette is written after its last test.
 */
export function prepareCassetteWriter(): void {
  validateFixtureFile({ fixtures: [] }, { file: 'cassette' });
}
