/**
 * A folder the product writes into and clears again, deleting only what it wrote there:
 * each write is listed in the folder's manifest first, and clearing removes exactly the
 * listed files (then the folder, if nothing else is left in it). A folder without a
 * manifest is never cleared, whatever it holds.
 */
import { lstatSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type FileContent, json, type WriteOptions, writeFile, writtenPath } from './write';

export const MANIFEST = '.understudy-written.json';

interface Manifest {
  writtenBy: 'jest-understudy';
  files: string[];
}

/** A name the manifest may list: a file of this folder, not a path out of it. */
const isOwnName = (name: unknown): name is string =>
  typeof name === 'string' &&
  name !== '' &&
  name !== '.' &&
  name !== '..' &&
  name !== MANIFEST &&
  !/[/\\]/.test(name);

function readManifest(dir: string): string[] | undefined {
  try {
    const data = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Partial<Manifest>;
    if (data?.writtenBy !== 'jest-understudy' || !Array.isArray(data.files)) return undefined;
    return data.files.filter(isOwnName);
  } catch {
    return undefined;
  }
}

function removeFile(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isFile() || stat.isSymbolicLink()) unlinkSync(path);
  } catch {
    // already gone
  }
}

export class OwnedFolder {
  /** What the manifest lists: read from the folder on the first write, unless it was cleared. */
  private files: string[] | undefined;

  constructor(readonly dir: string) {}

  /** Removes the files an earlier run listed here, the manifest, and the folder if it is left empty. */
  clear(): void {
    const listed = readManifest(this.dir);
    this.files = [];
    if (!listed) return;
    for (const name of listed) removeFile(join(this.dir, name));
    removeFile(join(this.dir, MANIFEST));
    try {
      rmdirSync(this.dir);
    } catch {
      // not empty: someone else's files stay, and so does the folder
    }
  }

  /** Writes `name` into the folder, listed in the manifest before the file exists. */
  write(name: string, content: FileContent, options: WriteOptions = {}): string {
    const file = writtenPath(join(this.dir, name), options.secrets);
    const own = basename(file);
    this.files ??= readManifest(this.dir) ?? [];
    if (!this.files.includes(own)) {
      this.files.push(own);
      const manifest: Manifest = { writtenBy: 'jest-understudy', files: this.files };
      writeFile(join(this.dir, MANIFEST), json(manifest), { ...options, atomic: true });
    }
    return writeFile(file, content, options);
  }
}
