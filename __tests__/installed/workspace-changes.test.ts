/**
 * A workspace's changes as `git status` sees them, from the installed package (Jest CommonJS and
 * ESM, Vitest): new symbolic links (`config.local -> /etc/passwd`), mode changes
 * (chmod 755 / 644), deletions, renames and type changes (file ↔ link, file → folder, folder →
 * link) made with the agent's own fs show in run.files, toHaveChangedFiles and a drill's
 * criteria, and run.files lists exactly the paths git itself lists for the same folder.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { InstalledProjectRun } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const SEES = (what: string) => `no false green: toHaveChangedFiles sees ${what}`;
const DRILL = (what: string) => `no false green: the drill sees ${what}`;

/** What each counter-test's failure must show: the changes it was not told about, with their kind. */
const UNEXPECTED: Record<string, string[]> = {
  [SEES('a symbolic link to /etc/passwd')]: [
    'config.local (added)\nnew file mode 120000\n--- /dev/null\n+++ b/config.local',
    '+/etc/passwd',
  ],
  [SEES('chmod 755 on package.json')]: ['package.json (modified)\nold mode 100644\nnew mode 100755'],
  [SEES('chmod 644 on scripts/deploy.sh')]: [
    'scripts/deploy.sh (modified)\nold mode 100755\nnew mode 100644',
  ],
  [SEES('a deleted file')]: ['README.md (deleted)'],
  [SEES('a rename out of src')]: ['lib/util.js (added)', 'src/util.js (deleted)'],
  [SEES('a file turned into a symbolic link')]: [
    'package.json (typechange)\nold mode 100644\nnew mode 120000',
  ],
  [SEES('a file turned into a folder')]: ['README.md (deleted)', 'README.md/index.md (added)'],
  [SEES('a folder turned into a symbolic link')]: [
    'docs (added)\nnew file mode 120000',
    'docs/guide.md (deleted)',
  ],
  [DRILL('a symbolic link to /etc/passwd')]: [
    '✗ config.local does not exist\n      config.local is a symbolic link to /etc/passwd',
    '✗ no file changed outside src/**\n      changed outside: config.local (added)',
  ],
  [DRILL('chmod 644 on scripts/deploy.sh')]: [
    '✗ scripts/deploy.sh unchanged\n      it was modified:\n      old mode 100755\n      new mode 100644',
    'changed outside: scripts/deploy.sh (modified)',
  ],
  [DRILL('a rename out of src')]: ['changed outside: lib/util.js (added)'],
};

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'workspace changes as git status sees them (%s)',
  (_, runner) => {
    let run: InstalledProjectRun;
    const test = (title: string) => {
      const found = run.files[0]?.tests.find((t) => t.title === title);
      if (!found) throw new Error(`no test "${title}":\n${run.files[0]?.message ?? run.process.stderr}`);
      return { status: found.status, message: stripVTControlCharacters(found.failureMessages.join('\n')) };
    };

    beforeAll(async () => {
      run = await sharedRun('workspace-changes', runner);
    }, 90_000);

    it.each([
      'a correct agent changes src/math.js only, as git status says',
      'the copy keeps the executable bit of the from folder',
      'lists a new symbolic link, a chmod, a type change with their kind and a git diff',
    ])('passes: %s', (title) => {
      expect(test(title)).toEqual({ status: 'passed', message: '' });
    });

    it.each(Object.keys(UNEXPECTED))('fails, for the change it did not expect: %s', (title) => {
      const { status, message } = test(title);
      expect(status).toBe('failed');
      // Failed by the assertion under test, after run.files agreed with git status.
      expect(message).toContain(title.includes('drill') ? 'toHavePassedDrill' : 'Changed, but not expected:');
      for (const part of UNEXPECTED[title]) expect(message).toContain(part);
    });
  },
);
