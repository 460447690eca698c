/**
 * Cassette metadata: recorded fixtures carry (non-enumerably) what they were recorded from,
 * and the writer turns that into the file's top-level `metadata`: provider, protocol, model,
 * prompt hash, package version, date.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Fixture } from '../fixtures/types';

const RECORDED_FROM: unique symbol = Symbol.for('jest-understudy.recorded-from') as never;

export interface RecordedFrom {
  provider: string;
  protocol: string;
  /** The model the request asked for. */
  model: string;
}

type Tagged = Fixture & { [RECORDED_FROM]?: RecordedFrom };

export function tagRecorded<T extends Fixture>(fixture: T, from: RecordedFrom): T {
  Object.defineProperty(fixture, RECORDED_FROM, { value: from, enumerable: false, configurable: true });
  return fixture;
}

export function recordedFrom(fixture: Fixture): RecordedFrom | undefined {
  return (fixture as Tagged)[RECORDED_FROM];
}

let version: string | undefined;

/** This package's version, from the nearest package.json named jest-understudy (source or dist). */
export function packageVersion(): string {
  if (version !== undefined) return version;
  version = 'unknown';
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8'));
        if (pkg.name === 'jest-understudy') {
          version = String(pkg.version);
          break;
        }
      } catch {
        // not readable: keep looking
      }
    }
    if (dirname(dir) === dir) break;
  }
  return version;
}

/** One value when all agree, the distinct values in order otherwise. */
function oneOrList(values: Iterable<string>): string | string[] | undefined {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return undefined;
  return distinct.length === 1 ? distinct[0] : distinct;
}

function listOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The top-level metadata of a file holding these fixtures, when any of them was recorded;
 * `previous` (an appended-to file's metadata) is merged in: its recording date stays.
 */
export function cassetteMetadata(
  fixtures: readonly Fixture[],
  previous?: Record<string, unknown>,
  mode?: string,
): Record<string, unknown> | undefined {
  const from = fixtures.map(recordedFrom).filter((f): f is RecordedFrom => f !== undefined);
  if (from.length === 0 && !previous) return undefined;
  const now = new Date().toISOString();
  const hashes = fixtures
    .map((f) => f.metadata?.promptHash)
    .filter((h): h is string => typeof h === 'string');
  const merged = (key: string, fresh: string[]) => oneOrList([...listOf(previous?.[key]), ...fresh]);
  const out: Record<string, unknown> = {
    ...(previous ?? {}),
    recorder: 'jest-understudy',
    provider: merged(
      'provider',
      from.map((f) => f.provider),
    ),
    protocol: merged(
      'protocol',
      from.map((f) => f.protocol),
    ),
    model: merged(
      'model',
      from.map((f) => f.model),
    ),
    promptHash: oneOrList(hashes),
    packageVersion: packageVersion(),
    recordedAt: typeof previous?.recordedAt === 'string' ? previous.recordedAt : now,
  };
  if (previous && from.length > 0) out.updatedAt = now;
  if (mode) out.mode = mode;
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}
