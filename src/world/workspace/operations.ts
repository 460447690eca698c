/**
 * The built-in operations of a workspace package: the file tools coding agents use
 * (`read_file`, `write_file`, `edit_file` with old/new strings, `list_dir`, `glob`, `grep`),
 * declared like any operation (input and output schemas, errors) so overrides, faults,
 * budgets and evidence apply, and run on the workspace folder. Every path goes through
 * confinement (paths.ts); every change is returned as a unified diff for the evidence.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { DeclaredError, FileChange, OperationDef } from '../types';
import { fileChange } from './changes';
import type { WorkspaceOperation } from './operation-ids';
import { confine, type PathProblem, relativeSegments } from './paths';
import { fileMode } from './tree';
import type { Workspace } from './workspace';

export { isWorkspaceOperation, WORKSPACE_OPERATIONS, type WorkspaceOperation } from './operation-ids';

/** Matches a grep returns at most (the output says when there were more). */
export const GREP_LIMIT = 200;

const err = (code: string, status: number, message: string): DeclaredError => ({ code, status, message });
const NOT_FOUND = err('NOT_FOUND', 404, 'No such file or folder in the workspace');
const OUTSIDE = err('OUTSIDE_WORKSPACE', 403, 'The path leads outside the workspace');
const NOT_A_FILE = err('NOT_A_FILE', 400, 'The path is a folder, not a file');
const NOT_A_DIRECTORY = err('NOT_A_DIRECTORY', 400, 'The path is a file, not a folder');

const path = (description: string) => ({ type: 'string', minLength: 1, description });
const object = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const folder = { type: 'string', description: 'A folder of the workspace (default: the workspace itself).' };

const DEFS: Record<WorkspaceOperation, Omit<OperationDef, 'id'>> = {
  read_file: {
    description: 'Reads a text file of the workspace (optionally lines offset.. offset+limit-1).',
    input: object(
      {
        path: path('The file, relative to the workspace.'),
        offset: { type: 'integer', minimum: 1, description: 'First line to read (1-based).' },
        limit: { type: 'integer', minimum: 1, description: 'Lines to read.' },
      },
      ['path'],
    ),
    output: object({ path: { type: 'string' }, content: { type: 'string' } }, ['path', 'content']),
    errors: [NOT_FOUND, OUTSIDE, NOT_A_FILE],
  },
  write_file: {
    description: 'Writes a file of the workspace (creating it and its folders, or replacing it).',
    input: object({ path: path('The file, relative to the workspace.'), content: { type: 'string' } }, [
      'path',
      'content',
    ]),
    output: object({ path: { type: 'string' }, created: { type: 'boolean' } }, ['path', 'created']),
    errors: [OUTSIDE, NOT_A_FILE, NOT_A_DIRECTORY],
  },
  edit_file: {
    description:
      'Replaces old_string with new_string in a file of the workspace; old_string must occur exactly once unless replace_all.',
    input: object(
      {
        path: path('The file, relative to the workspace.'),
        old_string: { type: 'string', minLength: 1, description: 'The text to replace.' },
        new_string: { type: 'string', description: 'The replacement.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence.' },
      },
      ['path', 'old_string', 'new_string'],
    ),
    output: object({ path: { type: 'string' }, replacements: { type: 'integer' } }, ['path', 'replacements']),
    errors: [
      NOT_FOUND,
      OUTSIDE,
      NOT_A_FILE,
      err('EDIT_NO_MATCH', 422, 'old_string does not occur in the file'),
      err('EDIT_AMBIGUOUS', 422, 'old_string occurs more than once in the file'),
    ],
  },
  list_dir: {
    description: 'Lists a folder of the workspace.',
    input: object({ path: folder }, []),
    output: object(
      {
        path: { type: 'string' },
        entries: {
          type: 'array',
          items: object({ name: { type: 'string' }, type: { enum: ['file', 'directory', 'symlink'] } }, [
            'name',
            'type',
          ]),
        },
      },
      ['path', 'entries'],
    ),
    errors: [NOT_FOUND, OUTSIDE, NOT_A_DIRECTORY],
  },
  glob: {
    description: 'Finds the files of the workspace whose paths match a glob, e.g. "src/**/*.ts".',
    input: object({ pattern: path('The glob, relative to `path`.'), path: folder }, ['pattern']),
    output: object({ files: { type: 'array', items: { type: 'string' } } }, ['files']),
    errors: [NOT_FOUND, OUTSIDE, NOT_A_DIRECTORY],
  },
  grep: {
    description: `Searches the text files of the workspace for a regular expression (at most ${GREP_LIMIT} matching lines).`,
    input: object(
      {
        pattern: { type: 'string', minLength: 1, description: 'A JavaScript regular expression.' },
        path: folder,
        glob: { type: 'string', minLength: 1, description: 'Only files matching this glob.' },
        ignore_case: { type: 'boolean' },
      },
      ['pattern'],
    ),
    output: object(
      {
        matches: {
          type: 'array',
          items: object({ path: { type: 'string' }, line: { type: 'integer' }, text: { type: 'string' } }, [
            'path',
            'line',
            'text',
          ]),
        },
        truncated: { type: 'boolean' },
      },
      ['matches'],
    ),
    errors: [NOT_FOUND, OUTSIDE, NOT_A_DIRECTORY],
  },
};

/** The operation definition of a built-in, with what the world file adds (description, toolNames, http). */
export function workspaceOperationDef(id: WorkspaceOperation, own?: OperationDef): OperationDef {
  const base = DEFS[id];
  return {
    id,
    ...base,
    ...(own?.description !== undefined && { description: own.description }),
    ...(own?.toolNames !== undefined && { toolNames: own.toolNames }),
    ...(own?.http !== undefined && { http: own.http }),
  };
}

/** What a built-in answers: a value, or a failure with one of its declared codes (or INVALID_INPUT). */
export type WorkspaceResult =
  | { value: unknown; changes?: FileChange[] }
  | { fail: { code: string; message: string } };

type Input = Record<string, unknown>;

const failWith = (problem: PathProblem | { code: string; message: string }): WorkspaceResult => ({
  fail: problem,
});

function kindOf(abs: string): 'file' | 'directory' | 'missing' {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(abs);
  } catch {
    // ENOENT, or ENOTDIR for a path through a file: nothing is there.
    return 'missing';
  }
  return stat?.isDirectory() ? 'directory' : 'file';
}

/** A path that must exist inside the workspace as a file (to read or edit) or a folder (to list or search). */
function existing(
  ws: Workspace,
  given: string,
  want: 'file' | 'directory',
): { abs: string; rel: string } | WorkspaceResult {
  const at = confine(ws.dir, given);
  if ('error' in at) return failWith(at.error);
  const kind = kindOf(at.abs);
  if (kind === 'missing') return failWith({ code: 'NOT_FOUND', message: `${given} does not exist` });
  if (kind !== want)
    return failWith(
      want === 'file'
        ? { code: 'NOT_A_FILE', message: `${given} is a folder` }
        : { code: 'NOT_A_DIRECTORY', message: `${given} is a file` },
    );
  return at;
}

const existingFile = (ws: Workspace, path: string) => existing(ws, path, 'file');
const existingFolder = (ws: Workspace, path: unknown) =>
  existing(ws, typeof path === 'string' ? path : '.', 'directory');

const isFailure = (x: object): x is WorkspaceResult => 'fail' in x || 'value' in x;

const toPosix = (p: string) => p.split(sep).join('/');
// Loaded on the first glob: every test file loads this module, few glob a workspace.
const globSync = (pattern: string, options: import('tinyglobby').GlobOptions): string[] =>
  (require('tinyglobby') as typeof import('tinyglobby')).globSync(pattern, options);

/** Files under `base` matching `pattern` (relative to the workspace), links inside only. */
function filesMatching(ws: Workspace, base: string, pattern: string): string[] | WorkspaceResult {
  const segments = relativeSegments(pattern);
  if (!Array.isArray(segments))
    return failWith({
      code: 'OUTSIDE_WORKSPACE',
      message: `the glob ${JSON.stringify(pattern)} ${segments.problem}: globs are relative and stay inside the workspace`,
    });
  const found = globSync(pattern, { cwd: base, dot: true, onlyFiles: true, followSymbolicLinks: false });
  const out: string[] = [];
  for (const file of found) {
    const rel = toPosix(relative(ws.dir, join(base, file)));
    const at = confine(ws.dir, rel);
    if ('error' in at || kindOf(at.abs) !== 'file') continue;
    out.push(rel);
  }
  return out.sort();
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Writes a file of the workspace; its change is named by the file written (a path through a link
 * inside the workspace names the link's target, as the folder's own changes do), mode kept.
 */
function write(ws: Workspace, abs: string, before: Buffer | undefined, text: string) {
  const after = Buffer.from(text, 'utf8');
  const mode = before === undefined ? 'file' : fileMode(statSync(abs).mode);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, after);
  if (before?.equals(after)) return [];
  const file = toPosix(relative(ws.dir, abs));
  return [fileChange(ws.packageId, file, before && { mode, content: before }, { mode, content: after })];
}

const RUN: Record<WorkspaceOperation, (ws: Workspace, input: Input) => WorkspaceResult> = {
  read_file(ws, input) {
    const at = existingFile(ws, input.path as string);
    if (isFailure(at)) return at;
    const text = readFileSync(at.abs, 'utf8');
    if (input.offset === undefined && input.limit === undefined)
      return { value: { path: at.rel, content: text } };
    const first = ((input.offset as number | undefined) ?? 1) - 1;
    const lines = splitLines(text);
    const end = input.limit === undefined ? lines.length : first + (input.limit as number);
    return { value: { path: at.rel, content: lines.slice(first, end).join('\n') } };
  },

  write_file(ws, input) {
    const path = input.path as string;
    const at = confine(ws.dir, path);
    if ('error' in at) return failWith(at.error);
    const kind = kindOf(at.abs);
    if (kind === 'directory') return failWith({ code: 'NOT_A_FILE', message: `${path} is a folder` });
    // A parent that is a file cannot hold it.
    for (let dir = dirname(at.abs); dir.length > ws.dir.length; dir = dirname(dir)) {
      if (kindOf(dir) === 'file')
        return failWith({
          code: 'NOT_A_DIRECTORY',
          message: `${toPosix(relative(ws.dir, dir))} is a file, so ${path} cannot be written`,
        });
    }
    const before = kind === 'file' ? readFileSync(at.abs) : undefined;
    const changes = write(ws, at.abs, before, input.content as string);
    return { value: { path: at.rel, created: before === undefined }, changes };
  },

  edit_file(ws, input) {
    const path = input.path as string;
    const at = existingFile(ws, path);
    if (isFailure(at)) return at;
    const before = readFileSync(at.abs);
    const text = before.toString('utf8');
    const old = input.old_string as string;
    const parts = text.split(old);
    const count = parts.length - 1;
    if (count === 0)
      return failWith({ code: 'EDIT_NO_MATCH', message: `old_string does not occur in ${at.rel}` });
    if (count > 1 && input.replace_all !== true)
      return failWith({
        code: 'EDIT_AMBIGUOUS',
        message: `old_string occurs ${count} times in ${at.rel}: give more of the surrounding text, or replace_all`,
      });
    const changes = write(ws, at.abs, before, parts.join(input.new_string as string));
    return { value: { path: at.rel, replacements: count }, changes };
  },

  list_dir(ws, input) {
    const at = existingFolder(ws, input.path);
    if (isFailure(at)) return at;
    const entries = readdirSync(at.abs, { withFileTypes: true })
      .map((e) => ({
        name: e.name,
        type: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : 'file',
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { value: { path: at.rel || '.', entries } };
  },

  glob(ws, input) {
    const at = existingFolder(ws, input.path);
    if (isFailure(at)) return at;
    const files = filesMatching(ws, at.abs, input.pattern as string);
    if (!Array.isArray(files)) return files;
    return { value: { files } };
  },

  grep(ws, input) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern as string, input.ignore_case === true ? 'i' : '');
    } catch (error) {
      return failWith({
        code: 'INVALID_INPUT',
        message: `pattern is not a regular expression: ${(error as Error).message}`,
      });
    }
    const at = existingFolder(ws, input.path);
    if (isFailure(at)) return at;
    const files = filesMatching(ws, at.abs, (input.glob as string | undefined) ?? '**/*');
    if (!Array.isArray(files)) return files;
    const matches: Array<{ path: string; line: number; text: string }> = [];
    for (const file of files) {
      const content = readFileSync(join(ws.dir, ...file.split('/')));
      if (content.subarray(0, 8000).includes(0)) continue;
      const lines = splitLines(content.toString('utf8'));
      for (let i = 0; i < lines.length; i++) {
        if (!regex.test(lines[i])) continue;
        if (matches.length === GREP_LIMIT) return { value: { matches, truncated: true } };
        matches.push({ path: file, line: i + 1, text: lines[i] });
      }
    }
    return { value: { matches } };
  },
};

/** Whether a file is there (for the test's own reads). */
export const isFile = (abs: string) => kindOf(abs) === 'file';

export function runWorkspaceOperation(
  name: WorkspaceOperation,
  workspace: Workspace,
  input: unknown,
): WorkspaceResult {
  return RUN[name](workspace, (input ?? {}) as Input);
}
