/**
 * Workspace packages from the installed package, under Jest (CommonJS and ESM) and Vitest:
 * an OpenAI agent edits a fixture workspace through the world's file tools; drills and
 * toHaveChangedFiles judge the files. The counter-tests must fail, with messages that show
 * the diff, and the timeline of a failed test shows it too. The temporary folders are
 * deleted, and nothing else in the temp folder is.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { RUNNERS, runInstalled } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

describe('workspace packages from the installed package', () => {
  it.each(runnersOf(__filename))(
    'an agent edits a workspace; the drill, the matcher and the timeline judge the files (%s)',
    async (runner) => {
      // The child's temp folder: the workspace folders go there, beside a file of "the user's".
      const temp = mkdtempSync(join(tmpdir(), 'understudy-installed-tmp-'));
      writeFileSync(join(temp, 'users-file.txt'), 'keep me');
      try {
        const run = await runInstalled({
          cases: ['workspace.case.js'],
          ...RUNNERS[runner],
          env: { TMPDIR: temp },
        });
        const [file] = run.files;
        expect(file.tests.map((t) => [t.title, t.status])).toEqual([
          ['the drill passes when the agent fixes the file through the workspace tools', 'passed'],
          ['the test has a folder of its own; the from folder is never written', 'passed'],
          ['the file tools stay in the folder', 'passed'],
          ['no false green: the agent also bumps package.json', 'failed'],
          ['no false green: an edit written around the tools counts', 'failed'],
          ['no false green: toHaveChangedFiles sees every file the run changed', 'failed'],
        ]);
        const message = (i: number) => stripVTControlCharacters(file.tests[i].failureMessages.join('\n'));
        expect(message(3)).toContain(
          '✗ package.json unchanged\n      it was modified:\n      --- a/package.json\n      +++ b/package.json',
        );
        expect(message(3)).toContain('      -  "version": "1.0.0"\n      +  "version": "1.0.1"');
        expect(message(3)).toContain(
          '✗ no file changed outside src/**\n      changed outside: package.json (modified)',
        );
        expect(message(4)).toContain('✗ package.json unchanged\n      it was modified:');
        expect(message(5)).toContain(
          'Changed, but not expected:\npackage.json (modified)\n--- a/package.json',
        );

        // The failed test's timeline shows the edit of package.json as a diff.
        const timeline = readFileSync(
          join(
            run.project,
            '.understudy',
            'traces',
            'workspace.case.js',
            'no false green_ the agent also bumps package.json.trace.html',
          ),
          'utf8',
        );
        expect(timeline).toContain('Files the run changed (2)');
        expect(timeline).toContain('<span class="del">-  &quot;version&quot;: &quot;1.0.0&quot;</span>');
        expect(timeline).toContain('<span class="add">+  &quot;version&quot;: &quot;1.0.1&quot;</span>');

        // Every workspace folder is gone; nothing else in the temp folder was touched.
        const last = readFileSync(join(run.project, 'last-workspace.txt'), 'utf8');
        expect(last.startsWith(temp)).toBe(true);
        expect(existsSync(last)).toBe(false);
        expect(readdirSync(temp).filter((n) => n.startsWith('understudy-repo-'))).toEqual([]);
        expect(readFileSync(join(temp, 'users-file.txt'), 'utf8')).toBe('keep me');
        // The case's from folder is as it was.
        expect(readFileSync(join(run.project, 'workspace-repo', 'src', 'math.js'), 'utf8')).toBe(
          'exports.add = (a, b) => a - b;\n',
        );
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    },
    90_000,
  );
});
