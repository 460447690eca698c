/**
 * How far a test's live trajectories moved from the one its cassette recorded: a score from 0
 * (every live run took the recorded path) to 1 (none shares a tool, an argument shape, the
 * order or the terminal state), and what changed, in words. Tools, argument shapes, order and
 * terminal state only: the model's prose never counts.
 */
import type { Trajectory } from './trajectory';

/** How much each part weighs in a run's distance (they sum to 1). */
const WEIGHTS = { tools: 0.35, shapes: 0.2, order: 0.2, terminal: 0.25 } as const;

export interface Drift {
  /** The mean distance of the live runs from the recorded trajectory, 0 to 1, three decimals. */
  score: number;
  /** What changed, each with the number of runs it changed in (`lookup_refund called in 2 of 3 runs`). */
  changes: string[];
}

/** The tool names of a trajectory, counted. */
function counts(t: Trajectory): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of t.tools) out.set(s.tool, (out.get(s.tool) ?? 0) + 1);
  return out;
}

function lcs(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!);
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** Each tool both trajectories call, paired call by call, with the shapes that differ. */
function shapeChanges(recorded: Trajectory, live: Trajectory): { pairs: number; changed: string[] } {
  let pairs = 0;
  const changed: string[] = [];
  for (const tool of new Set(recorded.tools.map((s) => s.tool))) {
    const was = recorded.tools.filter((s) => s.tool === tool);
    const now = live.tools.filter((s) => s.tool === tool);
    for (let i = 0; i < Math.min(was.length, now.length); i++) {
      pairs++;
      if (was[i]!.shape !== now[i]!.shape)
        changed.push(`${tool} arguments ${was[i]!.shape} → ${now[i]!.shape}`);
    }
  }
  return { pairs, changed };
}

/** The distance of one live trajectory from the recorded one, 0 to 1, and what differed. */
export function distance(recorded: Trajectory, live: Trajectory): { value: number; changes: string[] } {
  const was = counts(recorded);
  const now = counts(live);
  let shared = 0;
  let all = 0;
  const changes: string[] = [];
  for (const tool of new Set([...was.keys(), ...now.keys()])) {
    const a = was.get(tool) ?? 0;
    const b = now.get(tool) ?? 0;
    shared += Math.min(a, b);
    all += Math.max(a, b);
    if (a === 0) changes.push(`${tool} called`);
    else if (b === 0) changes.push(`${tool} not called`);
    else if (a !== b) changes.push(`${tool} called ${b} times, recorded ${a}`);
  }
  const tools = all === 0 ? 0 : 1 - shared / all;
  const shapes = shapeChanges(recorded, live);
  changes.push(...shapes.changed);
  const shapeDistance = shapes.pairs === 0 ? 0 : shapes.changed.length / shapes.pairs;
  const a = recorded.tools.map((s) => s.tool);
  const b = live.tools.map((s) => s.tool);
  const same = a.length === b.length && a.every((t, i) => t === b[i]);
  const longest = Math.max(a.length, b.length);
  const order = same || longest === 0 ? 0 : 1 - lcs(a, b) / longest;
  if (!same && tools === 0)
    changes.push(`tools in another order: ${b.join(' → ')}, recorded ${a.join(' → ')}`);
  const terminal = recorded.terminal === live.terminal ? 0 : 1;
  if (terminal) changes.push(`ended ${live.terminal}, recorded ${recorded.terminal}`);
  const value =
    WEIGHTS.tools * tools +
    WEIGHTS.shapes * shapeDistance +
    WEIGHTS.order * order +
    WEIGHTS.terminal * terminal;
  return { value, changes };
}

/** The drift of a test: its live runs' mean distance from the recording, and each change with how many runs had it. */
export function driftOf(recorded: Trajectory, live: readonly Trajectory[]): Drift {
  if (live.length === 0) return { score: 0, changes: [] };
  let total = 0;
  const seen = new Map<string, number>();
  for (const t of live) {
    const d = distance(recorded, t);
    total += d.value;
    for (const change of new Set(d.changes)) seen.set(change, (seen.get(change) ?? 0) + 1);
  }
  return {
    score: Math.round((total / live.length) * 1000) / 1000,
    changes: [...seen].map(
      ([change, n]) => `${change} in ${n} of ${live.length} run${live.length === 1 ? '' : 's'}`,
    ),
  };
}
