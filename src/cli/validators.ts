/**
 * `understudy validate`: which kind of file each argument is, and the validator for it.
 * Kinds are told by name first (`*.golden.yaml`, `*.world.yaml`, `*.cassette.json`,
 * `*.fixture.json`…), then by content. Every file that can answer model calls (a cassette or
 * any fixture file) is scanned for credentials. A file of no kind it can tell is a problem when
 * it was named, and skipped when a glob found it.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { FileIssue } from '../file-format/issue';
import { FixtureFileError } from '../fixtures/errors';
import { formatOf, parseFixtureText } from '../fixtures/format';
import { loadFixtures } from '../fixtures/load';
import { readGoldenFile } from '../golden/load';

export type FileKind = 'fixtures' | 'cassette' | 'golden' | 'world';

export type Verdict =
  | { kind: FileKind; ok: true; summary: string }
  | { kind: FileKind | 'unknown'; ok: false; issues: FileIssue[] }
  | { kind: FileKind | 'unknown'; skipped: string };

const BY_NAME: Array<[RegExp, FileKind]> = [
  [/\.golden\.(ya?ml|json)$/i, 'golden'],
  [/\.world\.(ya?ml|json)$/i, 'world'],
  [/\.cassette\.(ya?ml|json)$/i, 'cassette'],
  [/\.fixtures?\.(ya?ml|json)$/i, 'fixtures'],
];

/** The kind of a file, by its name, else by its content; undefined when it cannot be told. */
export function kindOf(file: string): FileKind | undefined {
  const name = basename(file);
  for (const [pattern, kind] of BY_NAME) if (pattern.test(name)) return kind;
  const format = formatOf(file);
  if ('issue' in format) return undefined;
  let data: unknown;
  try {
    const parsed = parseFixtureText(readFileSync(file, 'utf8'), format.format, file);
    if ('issue' in parsed) return undefined;
    data = parsed.data;
  } catch {
    return undefined;
  }
  if (Array.isArray(data)) return 'fixtures';
  if (typeof data !== 'object' || data === null) return undefined;
  const o = data as Record<string, unknown>;
  if ('tasks' in o) return 'golden';
  if ('packages' in o || 'drills' in o || 'toolOverrides' in o || 'scenarios' in o) return 'world';
  if ('fixtures' in o) {
    const meta = o.metadata as Record<string, unknown> | undefined;
    return meta &&
      typeof meta === 'object' &&
      ('recordedAt' in meta || 'recorded' in meta || 'cassette' in meta || 'promptHash' in meta)
      ? 'cassette'
      : 'fixtures';
  }
  return undefined;
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function loadsAsFixtures(file: string, kind: FileKind): Verdict {
  try {
    const fixtures = loadFixtures(file);
    return { kind, ok: true, summary: count(fixtures.length, 'fixture') };
  } catch (error) {
    if (error instanceof FixtureFileError) return { kind, ok: false, issues: [...error.issues] };
    throw error;
  }
}

function validateFixtures(file: string): Verdict {
  // Any fixture file can answer model calls as a cassette does: it must hold no credential either.
  const base = loadsAsFixtures(file, 'fixtures');
  if (!('ok' in base) || !base.ok) return base;
  const issues = cassetteChecks().secretIssues(file, readFileSync(file, 'utf8'));
  return issues.length > 0 ? { kind: 'fixtures', ok: false, issues } : base;
}

// The world loader and the cassette checks are required on first use: most runs of the
// command read fixture files only.
const worldLoad = (): typeof import('../world/load') => require('../world/load');
const cassetteChecks = (): typeof import('../record/validate') => require('../record/validate');

function validateWorld(file: string): Verdict {
  // Checked without loading behavior modules: validating a file never runs the user's code.
  const result = worldLoad().checkWorldFile(file);
  if ('issues' in result) return { kind: 'world', ok: false, issues: [...result.issues] };
  return {
    kind: 'world',
    ok: true,
    summary: `${count(result.packages, 'package')} (behavior modules resolved, not run)`,
  };
}

function validateCassette(file: string): Verdict {
  // A cassette is a fixture file with recording metadata: no secret left in it, metadata that agrees.
  const base = loadsAsFixtures(file, 'cassette');
  if (!('ok' in base) || !base.ok) return base;
  const issues = cassetteChecks().validateCassetteFile(file);
  return issues.length > 0 ? { kind: 'cassette', ok: false, issues } : base;
}

function validateGolden(file: string): Verdict {
  const result = readGoldenFile(file);
  if ('issues' in result) return { kind: 'golden', ok: false, issues: result.issues };
  return { kind: 'golden', ok: true, summary: count(result.golden.tasks.length, 'task') };
}

/**
 * The verdict on one file. Whatever goes wrong inside a validator is that file's problem, not
 * the command's: the others are still checked.
 */
export function validateFile(file: string, kind?: FileKind, named = true): Verdict {
  let as = kind;
  try {
    as ??= kindOf(file);
    return verdictOf(file, as, named);
  } catch (error) {
    return {
      kind: as ?? 'fixtures',
      ok: false,
      issues: [
        {
          code: 'VALIDATE_FAILED',
          file,
          path: '$',
          message: `could not be checked: ${(error as Error)?.message ?? String(error)}`,
        },
      ],
    };
  }
}

const UNKNOWN_KIND =
  'cannot tell what kind of file this is (name it *.fixture.json, *.golden.yaml, *.world.yaml or *.cassette.json, or pass --kind)';

function verdictOf(file: string, kind: FileKind | undefined, named: boolean): Verdict {
  switch (kind) {
    case 'fixtures':
      return validateFixtures(file);
    case 'cassette':
      return validateCassette(file);
    case 'golden':
      return validateGolden(file);
    case 'world':
      return validateWorld(file);
    default:
      // A file the command line names and that goes unchecked would pass a pre-commit scan unread.
      if (!named) return { kind: 'unknown', skipped: UNKNOWN_KIND };
      return {
        kind: 'unknown',
        ok: false,
        issues: [
          {
            code: 'VALIDATE_UNKNOWN_KIND',
            file,
            path: '$',
            message: `was not checked: ${UNKNOWN_KIND}`,
          },
        ],
      };
  }
}
