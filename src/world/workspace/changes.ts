/**
 * What changed between two trees of a workspace, as `git status` sees it: every entry added,
 * deleted or modified (content or executable bit), and every entry whose type changed between
 * file and symbolic link (`typechange`). A folder that became a file (or the other way round)
 * is the entries that went and came. Each change carries a unified diff, git style: mode lines
 * when a mode is not a plain file's or changed, then the content (a link's target) as a patch.
 */
import type { FileChange } from '../types';
import type { EntryMode, FileTree, TreeEntry } from './tree';

// Loaded on the first patch: every test file loads this module, few change a workspace.
const jsDiff = (): typeof import('diff') => require('diff');

/** Git's file modes. */
const GIT_MODE: Record<EntryMode, string> = { file: '100644', executable: '100755', symlink: '120000' };

const isBinary = (content: Buffer) => content.subarray(0, 8000).includes(0);

const isLink = (entry: TreeEntry | undefined) => entry?.mode === 'symlink';

const sameEntry = (a: TreeEntry, b: TreeEntry) => a.mode === b.mode && a.content.equals(b.content);

function kindOf(before: TreeEntry | undefined, after: TreeEntry | undefined): FileChange['change'] {
  if (before === undefined) return 'added';
  if (after === undefined) return 'deleted';
  return isLink(before) === isLink(after) ? 'modified' : 'typechange';
}

/** The mode lines git writes above a patch; none for a plain file added, deleted or edited. */
function modeLines(before: TreeEntry | undefined, after: TreeEntry | undefined): string {
  if (before === undefined) return after!.mode === 'file' ? '' : `new file mode ${GIT_MODE[after!.mode]}\n`;
  if (after === undefined)
    return before.mode === 'file' ? '' : `deleted file mode ${GIT_MODE[before.mode]}\n`;
  return before.mode === after.mode
    ? ''
    : `old mode ${GIT_MODE[before.mode]}\nnew mode ${GIT_MODE[after.mode]}\n`;
}

/** One entry's change as a unified diff, git style (`/dev/null` for an added or deleted side). */
export function fileChange(
  packageId: string,
  path: string,
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
): FileChange {
  const from = before === undefined ? '/dev/null' : `a/${path}`;
  const to = after === undefined ? '/dev/null' : `b/${path}`;
  const modes = modeLines(before, after);
  const contentSame = before !== undefined && after !== undefined && before.content.equals(after.content);
  const patch = contentSame
    ? ''
    : (before && isBinary(before.content)) || (after && isBinary(after.content))
      ? `Binary files ${from} and ${to} differ\n`
      : jsDiff().createTwoFilesPatch(
          from,
          to,
          before?.content.toString('utf8') ?? '',
          after?.content.toString('utf8') ?? '',
          undefined,
          undefined,
          { headerOptions: jsDiff().FILE_HEADERS_ONLY },
        );
  return { packageId, path, change: kindOf(before, after), diff: `${modes}${patch}` };
}

/** Every entry that differs between two trees, in path order. */
export function treeChanges(packageId: string, before: FileTree, after: FileTree): FileChange[] {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: FileChange[] = [];
  for (const path of paths) {
    const a = before.get(path);
    const b = after.get(path);
    if (a !== undefined && b !== undefined && sameEntry(a, b)) continue;
    changes.push(fileChange(packageId, path, a, b));
  }
  return changes;
}
