/** Which formats the package's files come in (JSON or YAML), decided by extension. */
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import type { FileIssue } from './issue';

export type FileFormat = 'json' | 'yaml';

const FORMATS: Record<string, FileFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

/** The format a file name says, or the issue `code` naming its extension; `suggestion` says which names work. */
export function formatOf<Code extends string>(
  file: string,
  code: Code,
  suggestion: string,
): { format: FileFormat } | { issue: FileIssue<Code> } {
  const extension = extname(file).toLowerCase();
  if (Object.hasOwn(FORMATS, extension)) return { format: FORMATS[extension] };
  return {
    issue: {
      code,
      file,
      path: '$',
      message: extension
        ? `unsupported file extension "${extension}"`
        : 'the file name has no extension, so its format is unknown',
      suggestion,
    },
  };
}

export function isDirectory(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
