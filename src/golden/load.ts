/**
 * Reading golden task files (JSON or YAML): all or nothing, every problem named with
 * the file, line and JSON path, like fixture and world files (the same issue helpers,
 * with the golden schema's wording). Inline fixtures are validated as fixtures.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { formatOf } from '../file-format/format';
import { findingsFromAjv, type IssueWording, toIssues } from '../file-format/issues';
import { formatPath, type PathSegment } from '../file-format/json-path';
import { createLocator, type Locator } from '../file-format/locate';
import { parseText } from '../file-format/parse';
import { readText } from '../file-format/read';
import { readFixtureFile } from '../fixtures/load';
import type { Fixture } from '../fixtures/types';
import { validateFixtureFile } from '../fixtures/validate';
import { schemaValidator } from '../validators';
import { GoldenFileError, type GoldenIssue } from './errors';
import { goldenSchema } from './golden.schema';
import type { GoldenFile, GoldenStep, GoldenTask, GoldenTrajectory } from './types';

export { GoldenFileError, type GoldenIssue, type GoldenIssueCode } from './errors';

const goldenWording: IssueWording = {
  definitions: {},
  rootType: (got) => `a golden task file must be an object { "tasks": [ … ] } (got ${got})`,
  missingHints: {
    tasks: 'a golden task file lists its scenarios under "tasks"',
    id: 'give the task a unique "id"; it names the Jest test',
    input: 'add the "input" the agent receives (text or any JSON value)',
    steps: 'list the expected tool calls under "steps"',
    regex: 'a pattern is { "regex": "…", "flags": "i" }',
    name: 'an expected step needs the tool "name"',
  },
  noneOf: (names) => ({ message: `needs one of ${names.map((n) => JSON.stringify(n)).join(', ')}` }),
  home(name, allowed) {
    const expectKeys = ['trajectory', 'finalMessage', 'terminalState'];
    const negativeKeys = ['neverCalls', 'forbiddenOrders'];
    if (allowed.includes('input') && expectKeys.includes(name)) return 'expect';
    if (allowed.includes('input') && negativeKeys.includes(name)) return 'negative';
    if (allowed.includes('trajectory') && negativeKeys.includes(name)) return 'negative';
    if (allowed.includes('neverCalls') && expectKeys.includes(name)) return 'expect';
    return undefined;
  },
  aliases: {
    name: ['id'],
    title: ['id', 'description'],
    prompt: ['input'],
    user: ['input'],
    message: ['input', 'finalMessage'],
    question: ['input'],
    expected: ['expect'],
    expectations: ['expect'],
    assert: ['expect'],
    tools: ['trajectory', 'steps'],
    toolSequence: ['trajectory'],
    sequence: ['trajectory', 'steps'],
    calls: ['trajectory', 'steps'],
    final: ['finalMessage'],
    reply: ['finalMessage'],
    answer: ['finalMessage'],
    state: ['terminalState'],
    status: ['terminalState'],
    negatives: ['negative'],
    forbidden: ['negative', 'neverCalls', 'forbiddenOrders'],
    never: ['neverCalls'],
    mustNotCall: ['neverCalls'],
    forbiddenTools: ['neverCalls'],
    forbiddenOrder: ['forbiddenOrders'],
    order: ['forbiddenOrders'],
    arguments: ['args'],
    timeout: ['timeoutMs'],
    fixture: ['fixtures'],
    cassette: ['fixtures'],
  },
};

/** `$.tasks[0].fixtures[1].match` → segments. */
function segmentsOf(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

export interface GoldenValidateOptions {
  file?: string;
  source?: string;
}

export type GoldenValidation = { ok: true; golden: GoldenFile } | { ok: false; errors: GoldenIssue[] };

/** Validates parsed golden data; resolves fixture paths against the file's folder. */
export function validateGoldenFile(data: unknown, options: GoldenValidateOptions = {}): GoldenValidation {
  const file = options.file ?? '<golden>';
  const dir = options.file ? dirname(resolve(options.file)) : process.cwd();
  const locate: Locator | undefined =
    options.source === undefined ? undefined : createLocator(options.source);
  const validate = schemaValidator('golden', goldenSchema, 'validateGolden');
  if (!validate(data)) {
    const findings = findingsFromAjv(validate.errors ?? [], data, goldenWording);
    return { ok: false, errors: toIssues(findings, file, locate, 'GOLDEN_INVALID') };
  }
  const raw = data as {
    fixtures?: unknown;
    world?: string;
    tasks: Array<Record<string, unknown>>;
    description?: string;
  };
  const issues: GoldenIssue[] = [];
  const at = (segments: PathSegment[], message: string, suggestion?: string): GoldenIssue => {
    const position = locate?.(segments);
    return {
      code: 'GOLDEN_INVALID',
      file,
      path: formatPath(segments),
      ...(position && { line: position.line, column: position.column }),
      message,
      ...(suggestion && { suggestion }),
    };
  };
  const fixturesOf = (value: unknown, base: PathSegment[]): { files: string[]; inline: Fixture[] } => {
    const out = { files: [] as string[], inline: [] as Fixture[] };
    if (value === undefined) return out;
    const list = Array.isArray(value) ? value : [value];
    const objects: Array<{ entry: unknown; index: number }> = [];
    list.forEach((entry, index) => {
      const segments = Array.isArray(value) ? [...base, index] : base;
      if (typeof entry === 'string') {
        const path = resolve(dir, entry);
        if (!existsSync(path))
          issues.push(
            at(segments, `fixture file ${JSON.stringify(entry)} does not exist (looked for ${path})`),
          );
        else {
          // Validated as the run will load it: a broken fixture file is the golden file's problem too.
          const { problems, first } = fixtureFileProblems(path);
          if (problems.length > 0) {
            issues.push(
              at(
                segments,
                `fixture file ${JSON.stringify(entry)} is not valid (${problems.length === 1 ? 'a problem' : `${problems.length} problems`}, listed with the file)`,
              ),
              ...(first ? problems : []),
            );
          }
        }
        out.files.push(path);
      } else objects.push({ entry, index });
    });
    if (objects.length > 0) {
      const checked = validateFixtureFile(
        objects.map((o) => o.entry),
        { file },
      );
      if (checked.ok) out.inline.push(...checked.fixtures);
      else
        for (const issue of checked.errors) {
          const inner = segmentsOf(issue.path);
          const index = typeof inner[0] === 'number' ? objects[inner[0]].index : 0;
          issues.push(at([...base, index, ...inner.slice(1)], issue.message, issue.suggestion));
        }
    }
    return out;
  };

  // Each referenced fixture file is read once, however many tasks share it; its problems are reported once.
  const checked = new Map<string, GoldenIssue[]>();
  const fixtureFileProblems = (path: string): { problems: GoldenIssue[]; first: boolean } => {
    const known = checked.get(path);
    if (known) return { problems: known, first: false };
    const result = readFixtureFile(path);
    const problems = 'issues' in result ? result.issues : [];
    checked.set(path, problems);
    return { problems, first: true };
  };
  const shared = fixturesOf(raw.fixtures, ['fixtures']);
  const ids = new Map<string, number>();
  const tasks: GoldenTask[] = raw.tasks.map((t, i) => {
    const id = t.id as string;
    if (ids.has(id))
      issues.push(
        at(
          ['tasks', i, 'id'],
          `duplicate task id ${JSON.stringify(id)} (also tasks[${ids.get(id)}])`,
          'give every task its own id',
        ),
      );
    else ids.set(id, i);
    for (const [key, label] of [['finalMessage', 'expect']] as const) {
      const pattern = (t.expect as Record<string, unknown> | undefined)?.[key] as
        | { regex?: string; flags?: string }
        | undefined;
      if (pattern && typeof pattern === 'object') {
        try {
          new RegExp(pattern.regex ?? '', pattern.flags);
        } catch (error) {
          issues.push(
            at(
              ['tasks', i, label, key, 'regex'],
              `not a valid regular expression: ${(error as Error).message}`,
            ),
          );
        }
      }
    }
    const own = fixturesOf(t.fixtures, ['tasks', i, 'fixtures']);
    const world = (t.world as string | undefined) ?? raw.world;
    const e = (t.expect ?? {}) as Record<string, unknown>;
    const trajectory = e.trajectory as unknown;
    const task: GoldenTask = {
      id,
      input: t.input,
      fixtureFiles: [...own.files, ...shared.files],
      fixtures: [...own.inline, ...shared.inline],
      ...(typeof t.description === 'string' && { description: t.description }),
      ...(Array.isArray(t.tags) && { tags: t.tags as string[] }),
      ...(world !== undefined && { world: resolve(dir, world) }),
      ...(t.scenario !== undefined && { scenario: t.scenario as GoldenTask['scenario'] }),
      ...(typeof t.timeoutMs === 'number' && { timeoutMs: t.timeoutMs }),
      ...(t.metadata !== undefined && { metadata: t.metadata as Record<string, unknown> }),
      expect: {
        ...(trajectory !== undefined && { trajectory: normalizeTrajectory(trajectory) }),
        ...(e.finalMessage !== undefined && {
          finalMessage: e.finalMessage as GoldenTask['expect']['finalMessage'],
        }),
        ...(typeof e.terminalState === 'string' && { terminalState: e.terminalState }),
      },
      negative: {
        neverCalls:
          ((t.negative as Record<string, unknown> | undefined)?.neverCalls as GoldenStep[] | undefined) ?? [],
        forbiddenOrders:
          ((t.negative as Record<string, unknown> | undefined)?.forbiddenOrders as
            | GoldenStep[][]
            | undefined) ?? [],
      },
      file,
      index: i,
    };
    return task;
  });
  if (issues.length > 0) return { ok: false, errors: issues };
  return {
    ok: true,
    golden: { file, ...(raw.description !== undefined && { description: raw.description }), tasks },
  };
}

function normalizeTrajectory(value: unknown): GoldenTrajectory {
  if (Array.isArray(value)) return { steps: value as GoldenStep[], mode: 'exact', args: 'subset' };
  const t = value as Partial<GoldenTrajectory> & { steps: GoldenStep[] };
  return { steps: t.steps, mode: t.mode ?? 'exact', args: t.args ?? 'subset' };
}

/** Reads and validates one file; issues instead of throwing. */
export function readGoldenFile(path: string): { golden: GoldenFile } | { issues: GoldenIssue[] } {
  const file = resolve(path);
  const format = formatOf(file, 'GOLDEN_READ_ERROR', 'golden task files end in .json, .yaml or .yml');
  if ('issue' in format) return { issues: [format.issue] };
  const read = readText(file, path, 'GOLDEN_READ_ERROR');
  if ('issue' in read) return { issues: [read.issue] };
  const { text } = read;
  const parsed = parseText(text, format.format, file, { code: 'GOLDEN_PARSE_ERROR' });
  if ('issue' in parsed) return { issues: [parsed.issue] };
  const result = validateGoldenFile(parsed.data, { file, source: text });
  return result.ok ? { golden: result.golden } : { issues: result.errors };
}

/**
 * Loads a golden task file (`.yaml`, `.yml`, `.json`).
 * @throws GoldenFileError naming the file, line and JSON path of every problem.
 */
export function loadGoldenFile(path: string): GoldenFile {
  const result = readGoldenFile(path);
  if ('issues' in result) throw new GoldenFileError(result.issues);
  return result.golden;
}
