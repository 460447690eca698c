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
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileChange } from '../types';
import { type FileTree, treeChanges } from './tree';

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
    for (const [path, content] of initial) {
      const abs = join(this.dir, ...path.split('/'));
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  }

  get disposed(): boolean {
    return this.gone;
  }

  /** The regular files in the folder now (links and other entries are not files of the tree). */
  snapshot(): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
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
        else if (stat?.isFile()) files.set(rel, readFileSync(abs));
      }
    };
    walk(this.dir, '');
    return files;
  }

  /** What changed since `since` (default: the initial tree), file by file. */
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
