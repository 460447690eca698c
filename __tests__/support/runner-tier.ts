/**
 * Which runners an installed driver's cases run under in this run: the runner matrix as a tier.
 *
 * `UNDERSTUDY_RUNNERS` (set by the npm scripts; see package.json):
 * - `all`, or unset (a bare `jest` run, the CI consumer jobs, `npm run test:matrix`): every case under
 *   every runner it names;
 * - `one` (`npm test`, `npm run test:e2e`): every case under one runner, the runners taking turns by
 *   driver, so each adapter still runs about a third of the drivers and a change that breaks one
 *   runner fails a gate run of a few minutes; the matrix runs the rest before a change lands;
 * - runner names, comma-separated: those runners only (a case none of them runs under keeps its first).
 */
import { basename } from 'node:path';
import { RUNNERS, type Runner } from './installed';

const VARIABLE = 'UNDERSTUDY_RUNNERS';
const ALL = Object.keys(RUNNERS) as Runner[];

type Selection = { kind: 'all' } | { kind: 'one' } | { kind: 'named'; runners: Runner[] };

function selection(): Selection {
  const value = process.env[VARIABLE]?.trim();
  if (!value || value === 'all') return { kind: 'all' };
  if (value === 'one') return { kind: 'one' };
  const runners = value.split(',').map((name) => name.trim());
  const unknown = runners.filter((name) => !(ALL as string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `${VARIABLE}: expected "all", "one" or runner names from ${ALL.join(', ')}, got ${unknown.map((n) => `"${n}"`).join(', ')}`,
    );
  return { kind: 'named', runners: runners as Runner[] };
}

/** A number from a driver's file name that stays the same from run to run (FNV-1a). */
function turnOf(driver: string): number {
  let hash = 0x811c9dc5;
  for (const char of basename(driver)) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

/**
 * The runners `driver` (its file name; a driver passes `__filename`) runs its cases under, of the
 * `candidates` the cases can run under, in their order. Never empty when `candidates` is not.
 */
export function runnersOf(driver: string, candidates: readonly Runner[] = ALL): Runner[] {
  const chosen = selection();
  if (chosen.kind === 'all' || candidates.length === 0) return [...candidates];
  if (chosen.kind === 'named') {
    const kept = candidates.filter((runner) => chosen.runners.includes(runner));
    return kept.length > 0 ? kept : [candidates[0]];
  }
  const turn = turnOf(driver);
  const preferred = ALL[turn % ALL.length];
  return [candidates.includes(preferred) ? preferred : candidates[turn % candidates.length]];
}

/** `rows` (a driver's `it.each` rows whose last item is the runner) kept to the runners of `runnersOf`. */
export function rowsOf<Row extends readonly [...unknown[], Runner]>(
  driver: string,
  rows: readonly Row[],
): Row[] {
  const runners = runnersOf(
    driver,
    rows.map((row) => row[row.length - 1] as Runner),
  );
  return rows.filter((row) => runners.includes(row[row.length - 1] as Runner));
}
