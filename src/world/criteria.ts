/**
 * A drill's success criteria, over the final world state and the evidence. Five kinds:
 *
 *   { state: "$.pkg.collection.key.field", equals | contains | exists }
 *   { called: { packageId, operationId?, arguments?, actorId?, outcome?, code?, replayed? }, times? }
 *   { notCalled: { …same filter… } }
 *   { noErrors: true | { except: [codes] } }
 *   { noDuplicateEffects: { packageId?, operationId } }
 *
 * `arguments` is a deep subset of the operation's input; `times` is a number or
 * { min, max } (default: at least once). Each criterion yields a result that says what
 * it checked and, when it failed, what it found instead.
 *
 * Over a workspace's files as the trial left them on disk (whatever wrote them: the
 * world's file tools or the agent's own), compared with the tree it started from:
 *
 *   { file: "src/app.ts", equals | contains | matches | exists }
 *   { fileUnchanged: "package.json" }
 *   { noChangesOutside: ["src/**"] }
 */
import picomatch from 'picomatch';
import type { Criterion, OperationFilter, OperationRecord, WorldState } from './types';
import { contains, deepEqual, parseStatePath, show, subset, valueAt } from './values';
import { treeChanges } from './workspace/changes';
import type { FileTree, TreeEntry } from './workspace/tree';

/** A workspace's files at the start and the end (packageId undefined: the world's only workspace). */
export type WorkspaceFiles = (
  packageId: string | undefined,
) => { initial: FileTree; current: FileTree } | undefined;

export interface CriterionResult {
  index: number;
  /** What was checked, in words (or the criterion's own description). */
  description: string;
  passed: boolean;
  /** What was found instead (failed criteria only). */
  found?: string;
}

function filterText(f: OperationFilter): string {
  const name = f.operationId ? `${f.packageId}/${f.operationId}` : `an operation of ${f.packageId}`;
  const parts: string[] = [];
  if (f.arguments) parts.push(`with ${show(f.arguments)}`);
  if (f.actorId) parts.push(`by ${f.actorId}`);
  if (f.code) parts.push(`failing with ${f.code}`);
  else if (f.outcome) parts.push(f.outcome === 'ok' ? 'succeeding' : 'failing');
  if (f.replayed === true) parts.push('(idempotent replays)');
  if (f.replayed === false) parts.push('(not replays)');
  return [name, ...parts].join(' ');
}

function matches(record: OperationRecord, f: OperationFilter): boolean {
  if (record.packageId !== f.packageId) return false;
  if (f.operationId !== undefined && record.operationId !== f.operationId) return false;
  if (f.actorId !== undefined && record.actorId !== f.actorId) return false;
  if (f.outcome !== undefined && record.outcome.kind !== f.outcome) return false;
  if (f.code !== undefined && (record.outcome.kind !== 'error' || record.outcome.error.code !== f.code))
    return false;
  if (f.replayed !== undefined && (record.idempotent?.replayed === true) !== f.replayed) return false;
  if (f.arguments !== undefined && !subset(record.input, f.arguments)) return false;
  return true;
}

function brief(record: OperationRecord): string {
  const o = record.outcome;
  const how = o.kind === 'ok' ? (record.idempotent ? 'ok (replayed)' : 'ok') : o.error.code;
  return `#${record.seq} ${record.operationId} ${show(record.input)} → ${how}`;
}

function list(records: readonly OperationRecord[], max = 6): string {
  const shown = records.slice(0, max).map(brief);
  return shown.join('; ') + (records.length > max ? `; … ${records.length - max} more` : '');
}

function timesText(times: Criterion['times']): string {
  if (times === undefined) return 'at least once';
  if (typeof times === 'number') return times === 1 ? 'exactly once' : `exactly ${times} times`;
  const { min, max } = times;
  if (min !== undefined && max !== undefined) return `${min} to ${max} times`;
  if (max !== undefined) return `at most ${max} times`;
  return `at least ${min ?? 1} times`;
}

function timesHold(times: Criterion['times'], n: number): boolean {
  if (times === undefined) return n >= 1;
  if (typeof times === 'number') return n === times;
  return n >= (times.min ?? 0) && n <= (times.max ?? Number.POSITIVE_INFINITY);
}

/** A file's text; a symbolic link has none (what it points to is not the workspace's). */
const textOf = (entry: TreeEntry | undefined) =>
  entry === undefined || entry.mode === 'symlink' ? undefined : entry.content.toString('utf8');

function foundAt(path: string, entry: TreeEntry | undefined): string {
  if (entry === undefined) return `${path} does not exist`;
  if (entry.mode === 'symlink') return `${path} is a symbolic link to ${entry.content.toString('utf8')}`;
  return `${path} holds ${show(entry.content.toString('utf8'))}`;
}

function fileCriterion(
  criterion: Criterion,
  files: ReturnType<WorkspaceFiles>,
  result: (description: string, passed: boolean, found?: string) => CriterionResult,
): CriterionResult {
  const no = (d: string) => result(d, false, 'the world has no such workspace');
  if (criterion.file !== undefined) {
    const path = criterion.file;
    const entry = files?.current.get(path);
    const text = textOf(entry);
    const there = foundAt(path, entry);
    if (Object.hasOwn(criterion, 'equals')) {
      const d = `${path} equals ${show(criterion.equals)}`;
      return files ? result(d, text === criterion.equals, there) : no(d);
    }
    if (Object.hasOwn(criterion, 'contains')) {
      const d = `${path} contains ${show(criterion.contains)}`;
      return files ? result(d, text?.includes(criterion.contains as string) === true, there) : no(d);
    }
    if (Object.hasOwn(criterion, 'matches')) {
      const d = `${path} matches /${criterion.matches}/`;
      return files
        ? result(d, text !== undefined && new RegExp(criterion.matches as string).test(text), there)
        : no(d);
    }
    const exists = criterion.exists !== false;
    const d = `${path} ${exists ? 'exists' : 'does not exist'}`;
    return files ? result(d, (entry !== undefined) === exists, there) : no(d);
  }
  if (criterion.fileUnchanged !== undefined) {
    const path = criterion.fileUnchanged;
    const d = `${path} unchanged`;
    if (!files) return no(d);
    const [change] = treeChanges(
      '',
      new Map(files.initial.has(path) ? [[path, files.initial.get(path)!]] : []),
      new Map(files.current.has(path) ? [[path, files.current.get(path)!]] : []),
    );
    return result(d, change === undefined, change && `it was ${change.change}:\n${change.diff}`);
  }
  const globs = criterion.noChangesOutside!;
  const d = `no file changed outside ${globs.join(', ')}`;
  if (!files) return no(d);
  const inside = picomatch(globs, { dot: true });
  const outside = treeChanges('', files.initial, files.current).filter((c) => !inside(c.path));
  return result(
    d,
    outside.length === 0,
    `changed outside: ${outside.map((c) => `${c.path} (${c.change})`).join(', ')}`,
  );
}

export function evaluateCriterion(
  criterion: Criterion,
  index: number,
  state: WorldState,
  evidence: readonly OperationRecord[],
  files: WorkspaceFiles = () => undefined,
): CriterionResult {
  const result = (description: string, passed: boolean, found?: string): CriterionResult => ({
    index,
    description: criterion.description ?? description,
    passed,
    ...(!passed && found !== undefined && { found }),
  });

  if (criterion.state !== undefined) {
    const path = criterion.state;
    const segments = parseStatePath(path);
    if ('error' in segments) return result(`state ${path}`, false, `not a state path: ${segments.error}`);
    const at = valueAt(state, segments);
    const there = at.found ? `found ${show(at.value)}` : `nothing at ${path}`;
    if (Object.hasOwn(criterion, 'equals'))
      return result(
        `state ${path} equals ${show(criterion.equals)}`,
        at.found && deepEqual(at.value, criterion.equals),
        there,
      );
    if (Object.hasOwn(criterion, 'contains'))
      return result(
        `state ${path} contains ${show(criterion.contains)}`,
        at.found && contains(at.value, criterion.contains),
        there,
      );
    const exists = criterion.exists !== false;
    return result(`state ${path} ${exists ? 'exists' : 'does not exist'}`, at.found === exists, there);
  }

  if (
    criterion.file !== undefined ||
    criterion.fileUnchanged !== undefined ||
    criterion.noChangesOutside !== undefined
  )
    return fileCriterion(criterion, files(criterion.workspace), result);

  if (criterion.called) {
    const f = criterion.called;
    const hits = evidence.filter((r) => matches(r, f));
    const same = evidence.filter(
      (r) => r.packageId === f.packageId && (!f.operationId || r.operationId === f.operationId),
    );
    const found =
      hits.length > 0
        ? `${hits.length} matched: ${list(hits)}`
        : same.length > 0
          ? `none matched; the calls were: ${list(same)}`
          : 'it was never called';
    return result(
      `${filterText(f)} called ${timesText(criterion.times)}`,
      timesHold(criterion.times, hits.length),
      found,
    );
  }

  if (criterion.notCalled) {
    const f = criterion.notCalled;
    const hits = evidence.filter((r) => matches(r, f));
    return result(`${filterText(f)} never called`, hits.length === 0, `called: ${list(hits)}`);
  }

  if (criterion.noDuplicateEffects) return duplicateEffects(criterion.noDuplicateEffects, evidence, result);

  if (criterion.noErrors === false) return result('operations may fail', true);
  const except = typeof criterion.noErrors === 'object' ? (criterion.noErrors.except ?? []) : [];
  const failed = evidence.filter((r) => r.outcome.kind === 'error' && !except.includes(r.outcome.error.code));
  return result(
    `no operation failed${except.length > 0 ? ` (except ${except.join(', ')})` : ''}`,
    failed.length === 0,
    `${failed.length} failed: ${list(failed)}`,
  );
}

/** A call's input without its idempotency key (a key taken from an input field is not the request). */
function logical(record: OperationRecord): unknown {
  const { input, idempotencyKey } = record;
  if (idempotencyKey === undefined || typeof input !== 'object' || input === null || Array.isArray(input))
    return input;
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== idempotencyKey));
}

/**
 * Two successful calls that were not idempotent replays are one logical request done twice when
 * they share an idempotency key, or their input: a key made fresh for each attempt does not
 * turn a retry into a new request.
 */
function duplicateEffects(
  f: { packageId?: string; operationId: string },
  evidence: readonly OperationRecord[],
  result: (description: string, passed: boolean, found?: string) => CriterionResult,
): CriterionResult {
  const name = f.packageId ? `${f.packageId}/${f.operationId}` : f.operationId;
  const executed = evidence.filter(
    (r) =>
      r.operationId === f.operationId &&
      (f.packageId === undefined || r.packageId === f.packageId) &&
      r.outcome.kind === 'ok' &&
      r.idempotent?.replayed !== true,
  );
  const twice: string[] = [];
  for (let i = 0; i < executed.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = executed[j];
      const b = executed[i];
      const sameKey = a.idempotencyKey !== undefined && a.idempotencyKey === b.idempotencyKey;
      if (sameKey || deepEqual(logical(a), logical(b))) {
        const why = sameKey ? `idempotency key ${show(a.idempotencyKey)}` : `input ${show(logical(a))}`;
        const keys =
          a.idempotencyKey !== b.idempotencyKey
            ? ` (keys ${show(a.idempotencyKey ?? null)} and ${show(b.idempotencyKey ?? null)})`
            : '';
        twice.push(`#${a.seq} and #${b.seq} with the same ${why}${keys}`);
        break;
      }
    }
  }
  return result(`no request to ${name} took effect twice`, twice.length === 0, twice.join('; '));
}

export function evaluateCriteria(
  criteria: readonly Criterion[],
  state: WorldState,
  evidence: readonly OperationRecord[],
  files?: WorkspaceFiles,
): CriterionResult[] {
  return criteria.map((c, i) => evaluateCriterion(c, i, state, evidence, files));
}
