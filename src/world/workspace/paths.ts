/**
 * Keeping a workspace's file tools inside its folder. A path from a tool call is relative,
 * with `/` (or `\`) separators and no `..` segment; every symbolic link on the way must
 * resolve inside the folder, and a link whose target is missing is refused (writing
 * through it would create the target wherever it points).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

export type PathProblem = { code: 'OUTSIDE_WORKSPACE' | 'NOT_FOUND' | 'INVALID_INPUT'; message: string };

/** The segments of a relative path, or why it is not one (`.` and '' are the folder itself). */
export function relativeSegments(path: string): string[] | { problem: string } {
  if (path.includes('\u0000')) return { problem: 'contains a NUL character' };
  if (/^([/\\]|[A-Za-z]:)/.test(path)) return { problem: 'is absolute' };
  const segments = path.split(/[/\\]+/).filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { problem: 'goes up with ".."' };
  return segments;
}

/** The same path with `/` separators, as the evidence names files. */
export const posixPath = (segments: readonly string[]) => segments.join('/');

export const isInside = (root: string, path: string) => path === root || path.startsWith(root + sep);

/**
 * The absolute path of `path` inside `root` (a real path: no links in it), or the problem.
 * Links along the way are followed only while they stay inside.
 */
export function confine(root: string, path: string): { abs: string; rel: string } | { error: PathProblem } {
  const segments = relativeSegments(path);
  if (!Array.isArray(segments)) {
    const code = segments.problem.includes('NUL') ? 'INVALID_INPUT' : 'OUTSIDE_WORKSPACE';
    return {
      error: {
        code,
        message: `${JSON.stringify(path)} ${segments.problem}: paths are relative to the workspace and stay inside it`,
      },
    };
  }
  let current = root;
  for (let i = 0; i < segments.length; i++) {
    const next = join(current, segments[i]);
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // The rest does not exist yet (a file about to be written): nothing more to follow.
      return { abs: join(next, ...segments.slice(i + 1)), rel: posixPath(segments) };
    }
    if (isLink) {
      let target: string;
      try {
        target = realpathSync(next);
      } catch {
        const to = resolve(dirname(next), readlinkSync(next));
        return {
          error: isInside(root, to)
            ? { code: 'NOT_FOUND', message: `${JSON.stringify(path)} is a symbolic link to nothing` }
            : {
                code: 'OUTSIDE_WORKSPACE',
                message: `${JSON.stringify(path)} is a symbolic link that points outside the workspace`,
              },
        };
      }
      if (!isInside(root, target))
        return {
          error: {
            code: 'OUTSIDE_WORKSPACE',
            message: `${JSON.stringify(path)} leads through a symbolic link outside the workspace`,
          },
        };
      current = target;
    } else current = next;
  }
  return { abs: current, rel: posixPath(segments) };
}
