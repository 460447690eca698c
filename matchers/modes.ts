/**
 * The names the trajectory and argument modes accept. `subset` and `superset` say which side
 * is the subset of which, and other tools read them the other way round (agentevals' `superset`
 * is our `subset`), so each has a name that says what passes: `contains` (the calls contain
 * every expected step) and `within` (every call is within the expected steps). Both names
 * stay accepted and mean the same; messages print the one the caller wrote.
 * docs/matcher-modes.md maps them to agentevals' and promptfoo's names.
 */
import type { ArgsMode, TrajectoryMode } from './types';

/** The older name of each unambiguous mode. */
const OLDER_NAME = { contains: 'subset', within: 'superset' } as const;

export type Older = (typeof OLDER_NAME)[keyof typeof OLDER_NAME];

/** A trajectory mode as the comparison knows it (older names resolved). */
export type TrajectoryMatch = Exclude<TrajectoryMode, Older>;
/** An args mode as the comparison knows it (older names resolved). */
export type ArgsMatch = Exclude<ArgsMode, Older>;

export const TRAJECTORY_MODES: readonly TrajectoryMode[] = [
  'exact',
  'ordered',
  'unordered',
  'contains',
  'within',
  'subset',
  'superset',
];

export const ARGS_MODES: readonly ArgsMode[] = [
  'contains',
  'exact',
  'ignore',
  'within',
  'subset',
  'superset',
];

/** The mode `name` stands for: `subset` is `contains`, `superset` is `within`, the rest are themselves. */
export function resolveMode<M extends TrajectoryMode | ArgsMode>(name: M): Exclude<M, Older> {
  if (name === OLDER_NAME.contains) return 'contains' as Exclude<M, Older>;
  if (name === OLDER_NAME.within) return 'within' as Exclude<M, Older>;
  return name as Exclude<M, Older>;
}
