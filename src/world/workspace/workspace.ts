/**
 * A workspace package's tree, materialized: a fresh temporary folder per test and per
 * drill trial, written from the tree the world file declared. The folder is the product's
 * own, so it is deleted (it and nothing else) when its test or trial is over, at a world
 * reset, and at the end of the file.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileChange } from '../types';
import { treeChanges } from './changes';
import { type FileTree, fileMode, type TreeEntry } from './tree';

export class Workspace {
  /** The folder, with every link in its path resolved (what confinement compares against). */
  readonly dir: string;
  private gone = false;

  constructor(
    readonly packageId: string,
    readonly initial: FileTree,
    private readonly store: WorkspaceStore,
  ) {
    const safeId = packageId.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40);
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), `understudy-${safeId}-`)));
    store.add(this);
    for (const [path, entry] of initial) {
      const abs = join(this.dir, ...path.split('/'));
      mkdirSync(dirname(abs), { recursive: true });
      if (entry.mode === 'symlink') symlinkSync(entry.content.toString('utf8'), abs);
      else writeFileSync(abs, entry.content, { mode: entry.mode === 'executable' ? 0o755 : 0o644 });
    }
  }

  get disposed(): boolean {
    return this.gone;
  }

  /**
   * The entries in the folder now, as git would track them: files with their executable bit,
   * and symbolic links by their target (never followed: a link may point anywhere). Folders are
   * walked, not entries; other kinds (sockets, pipes) are left out, as git leaves them.
   */
  snapshot(): Map<string, TreeEntry> {
    const files = new Map<string, TreeEntry>();
    const walk = (dir: string, prefix: string) => {
      let entries: string[];
      try {
        entries = readdirSync(dir).sort();
      } catch {
        return;
      }
      for (const name of entries) {
        const abs = join(dir, name);
        const rel = prefix ? `${prefix}/${name}` : name;
        const stat = lstatSync(abs, { throwIfNoEntry: false });
        if (stat?.isDirectory()) walk(abs, rel);
        else if (stat?.isFile()) files.set(rel, { mode: fileMode(stat.mode), content: readFileSync(abs) });
        else if (stat?.isSymbolicLink())
          files.set(rel, { mode: 'symlink', content: readlinkSync(abs, { encoding: 'buffer' }) });
      }
    };
    walk(this.dir, '');
    return files;
  }

  /** What changed since `since` (default: the initial tree), entry by entry. */
  changes(since: FileTree = this.initial): FileChange[] {
    return treeChanges(this.packageId, since, this.snapshot());
  }

  dispose(): void {
    if (this.gone) return;
    this.gone = true;
    this.store.remove(this);
    // Links inside are removed, never followed.
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The workspaces one test file made, so the ones still there are deleted when it ends. */
export class WorkspaceStore {
  private readonly live = new Set<Workspace>();

  add(workspace: Workspace): void {
    this.live.add(workspace);
  }

  remove(workspace: Workspace): void {
    this.live.delete(workspace);
  }

  disposeAll(): void {
    for (const workspace of [...this.live]) workspace.dispose();
  }
}
