/**
 * The per-test history the reporter keeps in `.understudy/history.jsonl`: one line per test file
 * per run (see ./history.schema.ts), with the code its tests ran (the test file and the data
 * files it loaded), which a test's results are grouped by. Lines are independent, so the files of several shards or
 * branches can be concatenated (`merge=union` in .gitattributes); a run and file seen twice
 * counts once, and order is restored by time when read. The file stays bounded: each test
 * file keeps its latest `keep` records. It holds test names and statuses, never a message.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { writeFile } from '../files/write';
import { schemaValidator } from '../validators';
import { type HISTORY_FORMAT, historySchema } from './history.schema';

export type HistoryStatus = 'passed' | 'failed' | 'flaky';

export interface HistoryTest {
  /** `describe › … › test` */
  name: string;
  status: HistoryStatus;
  quarantined?: boolean;
}

export interface HistoryRecord {
  format: typeof HISTORY_FORMAT;
  run: string;
  at: string;
  file: string;
  /** What the file's tests ran (absent in records of older versions). */
  code?: string;
  tests: HistoryTest[];
}

export interface HistoryFile {
  records: HistoryRecord[];
  /** Lines that are not records of ours (another tool's, a merge conflict's markers). */
  foreign: string[];
}

const isRecord = (value: unknown): value is HistoryRecord =>
  schemaValidator('history', historySchema, 'validateHistory')(value);

/** The records of a history file, in time order, each (run, file) once. */
export function readHistory(path: string): HistoryFile {
  if (!existsSync(path)) return { records: [], foreign: [] };
  const records = new Map<string, HistoryRecord>();
  const foreign: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      foreign.push(line);
      continue;
    }
    if (isRecord(value)) records.set(`${value.run}\u0000${value.file}`, value);
    else foreign.push(line);
  }
  return { records: [...records.values()].sort(byTime), foreign };
}

const byTime = (a: HistoryRecord, b: HistoryRecord) =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : a.run < b.run ? -1 : a.run > b.run ? 1 : 0;

/** Each test file's latest `keep` records, in time order, each (run, file) once (the last given). */
export function bounded(records: readonly HistoryRecord[], keep: number): HistoryRecord[] {
  const once = new Map(records.map((r) => [`${r.run}\u0000${r.file}`, r]));
  const perFile = new Map<string, HistoryRecord[]>();
  for (const r of [...once.values()].sort(byTime)) {
    const list = perFile.get(r.file) ?? [];
    list.push(r);
    perFile.set(r.file, list);
  }
  return [...perFile.values()].flatMap((list) => list.slice(-keep)).sort(byTime);
}

export type HistoryUpdate =
  | { ok: true; records: HistoryRecord[] }
  | { ok: false; reason: string; records: HistoryRecord[] };

/**
 * Adds this run's records to the file and trims it, under a lock file next to it (shards on one
 * machine finish at the same time). A file holding lines that are not ours is left as it is.
 */
export function updateHistory(path: string, added: readonly HistoryRecord[], keep: number): HistoryUpdate {
  const lock = `${path}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  const release = acquire(lock);
  if (!release) {
    return {
      ok: false,
      reason: `${lock} is held by another run`,
      records: bounded([...readHistory(path).records, ...added], keep),
    };
  }
  try {
    const current = readHistory(path);
    const records = bounded([...current.records, ...added], keep);
    if (current.foreign.length > 0)
      return {
        ok: false,
        reason: `${path} has ${current.foreign.length} line${current.foreign.length === 1 ? '' : 's'} jest-understudy did not write (a merge conflict? keep both sides' lines: they merge as they are), so it was left as it is`,
        records,
      };
    writeFile(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''), { atomic: true });
    return { ok: true, records };
  } finally {
    release();
  }
}

/** How long a lock file may sit before it counts as left behind by a run that died. */
const STALE_LOCK_MS = 30_000;

function acquire(lock: string): (() => void) | undefined {
  const deadline = Date.now() + 5_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lock);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) {
        unlinkSync(lock);
        continue;
      }
    } catch {
      continue;
    }
    if (Date.now() > deadline) return undefined;
    Atomics.wait(pause, 0, 0, 25);
  }
}

export interface TestHistory {
  file: string;
  name: string;
  /** Results under the test's latest code (what it ran: its file and the data files it loaded). */
  runs: number;
  failed: number;
  /** Passes since the latest failure (a flaky pass counts as a failure), under the latest code. */
  passStreak: number;
  /** It both passed and failed under the same code (in different runs, or in one through retries). */
  flaky: boolean;
}

/**
 * Every test's record over the history: its latest `window` results under the code it ran last.
 * A test edited between two runs (or given other fixtures) starts a new record, so a failure
 * before the edit and a pass after it are a fix, not a flake.
 */
export function testHistories(records: readonly HistoryRecord[], window: number): TestHistory[] {
  const perTest = new Map<
    string,
    { file: string; name: string; results: Array<{ code: string | undefined; status: HistoryStatus }> }
  >();
  for (const r of records)
    for (const t of r.tests) {
      const key = `${r.file}\u0000${t.name}`;
      const entry = perTest.get(key) ?? { file: r.file, name: t.name, results: [] };
      entry.results.push({ code: r.code, status: t.status });
      perTest.set(key, entry);
    }
  return [...perTest.values()].map(({ file, name, results }) => {
    const latest = results[results.length - 1].code;
    const recent = results
      .filter((r) => r.code === latest)
      .map((r) => r.status)
      .slice(-window);
    let passStreak = 0;
    for (let i = recent.length - 1; i >= 0 && recent[i] === 'passed'; i--) passStreak++;
    return {
      file,
      name,
      runs: recent.length,
      failed: recent.filter((s) => s !== 'passed').length,
      passStreak,
      // A pass on a retry is a pass and a failure in one run.
      flaky: recent.includes('flaky') || (recent.includes('failed') && recent.includes('passed')),
    };
  });
}

/** Tests that both passed and failed in their recent runs, the flakiest first. */
export function flaky(histories: readonly TestHistory[]): TestHistory[] {
  return histories
    .filter((h) => h.flaky)
    .sort((a, b) => b.failed / b.runs - a.failed / a.runs || a.name.localeCompare(b.name));
}
