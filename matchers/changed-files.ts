import type { MatcherContext, SyncExpectationResult } from 'expect';
import type { Run } from '../src/run/types';
import { matcherError } from './guards';
import {
  EXPECTED_COLOR,
  matcherErrorMessage,
  printExpected,
  printReceived,
  printWithType,
  RECEIVED_COLOR,
} from './matcher-utils';

/**
 * The run changed exactly these workspace entries (in any order), as `git status` lists
 * them: files added, modified (content or mode) or deleted, symbolic links, type changes;
 * by the world's file tools or by the agent's own code in the folder. The failure shows
 * each entry's diff, so the wrong edit is on screen.
 */
export function toHaveChangedFiles(
  this: MatcherContext,
  received: unknown,
  expected: unknown,
): SyncExpectationResult {
  const hint = this.utils.matcherHint('toHaveChangedFiles', undefined, 'paths', {
    isNot: this.isNot,
    promise: this.promise,
  });
  const files = (received as { files?: unknown } | null | undefined)?.files;
  if (typeof received !== 'object' || received === null || !Array.isArray(files)) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${RECEIVED_COLOR('received')} value must be a Run of a world with a workspace package (its \`files\` list what the run changed)`,
        printWithType('Received', received, printReceived),
      ),
    );
  }
  if (!Array.isArray(expected) || expected.some((p) => typeof p !== 'string')) {
    throw matcherError(
      matcherErrorMessage(
        hint,
        `${EXPECTED_COLOR('paths')} must be an array of workspace paths, e.g. ['src/app.ts']`,
        printWithType('paths', expected, printExpected),
      ),
    );
  }
  const changes = files as NonNullable<Run['files']>;
  const actual = [...new Set(changes.map((c) => c.path))].sort();
  const wanted = [...new Set(expected as string[])].sort();
  const pass = actual.length === wanted.length && actual.every((p, i) => p === wanted[i]);
  const missing = wanted.filter((p) => !actual.includes(p));
  const extra = changes.filter((c) => !wanted.includes(c.path));
  return {
    pass,
    message: () => {
      const lines = [
        hint,
        '',
        `Expected changed files: ${pass ? 'not ' : ''}${printExpected(wanted)}`,
        `Received changed files: ${printReceived(actual)}`,
      ];
      if (!pass && missing.length > 0) lines.push('', `Not changed: ${missing.join(', ')}`);
      const shown = pass ? changes : extra;
      if (shown.length > 0) {
        lines.push('', pass ? 'Changes:' : 'Changed, but not expected:');
        for (const c of shown) lines.push(`${c.path} (${c.change})`, c.diff.trimEnd());
      }
      return lines.join('\n');
    },
  };
}
