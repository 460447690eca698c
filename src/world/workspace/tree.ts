/**
 * A workspace package's file tree as the world file declares it: a folder copied
 * (`from`, relative to the world file, executable bits kept) and inline `files` written over
 * it. Read once when the world loads, so each test's copy comes from memory and the user's
 * folder is only ever read. Problems are findings at the package's JSON path.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PathSegment } from '../../file-format/json-path';
import type { PackageDef } from '../types';
import { isInside, posixPath, relativeSegments } from './paths';

/**
 * What git records of an entry of a tree: a file, an executable file, or a symbolic link
 * (whose content is the path it points to, never what is there).
 */
export type EntryMode = 'file' | 'executable' | 'symlink';

export interface TreeEntry {
  mode: EntryMode;
  content: Buffer;
}

/** The entries of a tree: relative path (with `/`) → entry. Folders are not entries (git tracks none). */
export type FileTree = ReadonlyMap<string, TreeEntry>;

/** An ordinary file's entry. */
export const fileEntry = (content: Buffer): TreeEntry => ({ mode: 'file', content });

/** The entry mode of a file from its `stat` mode: executable when its owner may run it, as git has it. */
export const fileMode = (statMode: number): EntryMode => ((statMode & 0o100) !== 0 ? 'executable' : 'file');

/** A fixture folder bigger than this is most likely a whole repository, node_modules and all. */
export const TREE_LIMITS = { files: 5_000, bytes: 50 * 1024 * 1024 };

export interface TreeFinding {
  segments: PathSegment[];
  message: string;
  suggestion?: string;
}

function readFolder(root: string, at: PathSegment[], findings: TreeFinding[]): Map<string, TreeEntry> {
  const files = new Map<string, TreeEntry>();
  let bytes = 0;
  const walk = (dir: string, prefix: string[]): boolean => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      const rel = [...prefix, entry.name];
      if (entry.isSymbolicLink()) {
        const target = resolve(dir, readlinkSync(path));
        const outside = !isInside(root, target);
        findings.push({
          segments: at,
          message: `${posixPath(rel)} in ${root} is a symbolic link${outside ? ' that points outside the tree' : ''}: a workspace copies files and folders only`,
          suggestion: 'replace the link with the file it stands for',
        });
        continue;
      }
      if (entry.isDirectory()) {
        if (!walk(path, rel)) return false;
        continue;
      }
      if (!entry.isFile()) continue;
      const content = readFileSync(path);
      bytes += content.length;
      files.set(posixPath(rel), { mode: fileMode(lstatSync(path).mode), content });
      if (files.size > TREE_LIMITS.files || bytes > TREE_LIMITS.bytes) {
        findings.push({
          segments: at,
          message: `${root} holds more than ${TREE_LIMITS.files} files or ${TREE_LIMITS.bytes / 1024 / 1024} MB: a workspace is copied for every test`,
          suggestion: 'point "from" at a small fixture folder made for the test',
        });
        return false;
      }
    }
    return true;
  };
  walk(root, []);
  return files;
}

/** The initial tree of a workspace package, or findings (its `from` missing, a file outside the tree…). */
export function readTree(
  pkg: PackageDef,
  dir: string,
  at: PathSegment[],
): { tree: FileTree } | { findings: TreeFinding[] } {
  const findings: TreeFinding[] = [];
  let files = new Map<string, TreeEntry>();
  if (pkg.from !== undefined) {
    const root = resolve(dir, pkg.from);
    let kind: 'folder' | 'other' | 'missing' = 'missing';
    try {
      kind = lstatSync(root).isDirectory() ? 'folder' : 'other';
    } catch {
      // missing
    }
    if (kind !== 'folder')
      findings.push({
        segments: [...at, 'from'],
        message: `${root} ${kind === 'missing' ? 'does not exist' : 'is not a folder'}`,
        suggestion: '"from" names a folder, relative to the world file',
      });
    else files = readFolder(root, [...at, 'from'], findings);
  }
  for (const [path, text] of Object.entries(pkg.files ?? {})) {
    const segments = relativeSegments(path);
    const where = [...at, 'files', path];
    if (!Array.isArray(segments) || segments.length === 0) {
      findings.push({
        segments: where,
        message: `${JSON.stringify(path)} is outside the tree: ${Array.isArray(segments) ? 'it names the workspace folder itself' : `it ${segments.problem}`}`,
        suggestion: 'file paths are relative to the workspace folder, e.g. "src/app.ts"',
      });
      continue;
    }
    const file = posixPath(segments);
    // Written over a copied file, as a write would: its executable bit stays.
    files.set(file, { mode: files.get(file)?.mode ?? 'file', content: Buffer.from(text, 'utf8') });
  }
  // A file cannot also be a folder of another file (`src` and `src/app.ts`).
  for (const path of files.keys()) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      const inline = (p: string) => pkg.files !== undefined && Object.hasOwn(pkg.files, p);
      if (files.has(folder))
        findings.push({
          segments: inline(path)
            ? [...at, 'files', path]
            : inline(folder)
              ? [...at, 'files', folder]
              : [...at, 'from'],
          message: `${folder} is a file, and ${path} would need it to be a folder`,
        });
    }
  }
  return findings.length > 0 ? { findings } : { tree: files };
}
