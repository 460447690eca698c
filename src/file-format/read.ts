/** Reading a file's text, with a failure as an issue that says why in words. */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { FileIssue } from './issue';

const REASONS: Record<string, string> = {
  ENOENT: 'the file does not exist',
  EISDIR: 'this is a directory, not a file',
  EACCES: 'permission denied',
};

/**
 * The text of `file` (absolute), or the issue `code`. `given` is the path as the caller wrote
 * it: a relative one that does not exist gets told what it was resolved against.
 */
export function readText<Code extends string>(
  file: string,
  given: string,
  code: Code,
): { text: string } | { issue: FileIssue<Code> } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    return { issue: readIssue(file, error as NodeJS.ErrnoException, code, !isAbsolute(given)) };
  }
}

export function readIssue<Code extends string>(
  file: string,
  error: NodeJS.ErrnoException,
  code: Code,
  relative: boolean,
): FileIssue<Code> {
  return {
    code,
    file,
    path: '$',
    message: (error.code && REASONS[error.code]) || `cannot read the file: ${error.message}`,
    ...(error.code === 'ENOENT' &&
      relative && {
        suggestion: `relative paths are resolved against the working directory (${process.cwd()})`,
      }),
  };
}
