/**
 * A workspace's changes as git sees them, unit by unit: entries of a tree are files (with their
 * executable bit) and symbolic links (by target, never followed); a change is added, deleted,
 * modified (content or mode) or a typechange, with git's mode lines above its patch; the file
 * criteria of a drill read links as links. And through the world: the snapshot of a test's
 * folder, and write_file through a link inside the folder naming the file it wrote.
 *
 * @understudy-world ../../../../../fixtures/worlds/workspace.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { chmodSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { mockTool, understudy } from 'jest-understudy';
import { evaluateCriterion } from '../../../../../src/world/criteria';
import { fileChange, treeChanges } from '../../../../../src/world/workspace/changes';
import type { FileTree, TreeEntry } from '../../../../../src/world/workspace/tree';

const file = (text: string): TreeEntry => ({ mode: 'file', content: Buffer.from(text) });
const executable = (text: string): TreeEntry => ({ mode: 'executable', content: Buffer.from(text) });
const link = (target: string): TreeEntry => ({ mode: 'symlink', content: Buffer.from(target) });
const tree = (entries: Record<string, TreeEntry>): FileTree => new Map(Object.entries(entries));

describe('fileChange: one entry, as git diff shows it', () => {
  it('a plain file added, edited or deleted has no mode lines', () => {
    expect(fileChange('repo', 'a.txt', undefined, file('x\n'))).toEqual({
      packageId: 'repo',
      path: 'a.txt',
      change: 'added',
      diff: '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+x\n',
    });
    expect(fileChange('repo', 'a.txt', file('x\n'), file('y\n')).diff).toBe(
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-x\n+y\n',
    );
    expect(fileChange('repo', 'a.txt', file('x\n'), undefined).change).toBe('deleted');
  });

  it('a mode change alone is modified, with old and new mode and no patch', () => {
    expect(fileChange('repo', 'run.sh', file('echo\n'), executable('echo\n'))).toEqual({
      packageId: 'repo',
      path: 'run.sh',
      change: 'modified',
      diff: 'old mode 100644\nnew mode 100755\n',
    });
    expect(fileChange('repo', 'run.sh', executable('a\n'), file('b\n')).diff).toBe(
      'old mode 100755\nnew mode 100644\n--- a/run.sh\n+++ b/run.sh\n@@ -1,1 +1,1 @@\n-a\n+b\n',
    );
  });

  it('a new link shows its target; a file that became a link is a typechange', () => {
    expect(fileChange('repo', 'config.local', undefined, link('/etc/passwd'))).toEqual({
      packageId: 'repo',
      path: 'config.local',
      change: 'added',
      diff: 'new file mode 120000\n--- /dev/null\n+++ b/config.local\n@@ -0,0 +1,1 @@\n+/etc/passwd\n\\ No newline at end of file\n',
    });
    const changed = fileChange('repo', 'package.json', file('{}\n'), link('/etc/passwd'));
    expect(changed.change).toBe('typechange');
    expect(
      changed.diff.startsWith('old mode 100644\nnew mode 120000\n--- a/package.json\n+++ b/package.json\n'),
    ).toBe(true);
    expect(fileChange('repo', 'lib', link('src'), file('x')).change).toBe('typechange');
    expect(fileChange('repo', 'lib', link('src'), link('dist')).change).toBe('modified');
    expect(fileChange('repo', 'lib', link('src'), undefined).diff).toContain('deleted file mode 120000\n');
  });
});

describe('treeChanges: every entry that differs', () => {
  it('lists modes, links, deletions and a folder turned into a link, in path order', () => {
    const before = tree({
      'README.md': file('# r\n'),
      'docs/guide.md': file('# g\n'),
      'run.sh': executable('echo\n'),
      'src/a.js': file('a\n'),
    });
    const after = tree({
      'README.md': file('# r\n'),
      docs: link('/etc'),
      'run.sh': file('echo\n'),
      'src/a.js': file('a\n'),
      'src/b.js': link('a.js'),
    });
    expect(treeChanges('repo', before, after).map((c) => [c.path, c.change])).toEqual([
      ['docs', 'added'],
      ['docs/guide.md', 'deleted'],
      ['run.sh', 'modified'],
      ['src/b.js', 'added'],
    ]);
    expect(treeChanges('repo', before, before)).toEqual([]);
  });
});

describe('file criteria read a link as a link', () => {
  const files = () => ({
    initial: tree({ 'package.json': file('{}\n') }),
    current: tree({ 'package.json': file('{}\n'), 'config.local': link('/etc/passwd') }),
  });
  const judge = (criterion: object) => evaluateCriterion(criterion as never, 0, {}, [], files);

  it('exists, with no text; noChangesOutside sees it', () => {
    expect(judge({ file: 'config.local', exists: false })).toEqual({
      index: 0,
      description: 'config.local does not exist',
      passed: false,
      found: 'config.local is a symbolic link to /etc/passwd',
    });
    expect(judge({ file: 'config.local', contains: 'root' }).passed).toBe(false);
    expect(judge({ noChangesOutside: ['src/**'] })).toMatchObject({
      passed: false,
      found: 'changed outside: config.local (added)',
    });
    expect(judge({ fileUnchanged: 'package.json' }).passed).toBe(true);
  });
});

describe("a test's workspace folder", () => {
  const tool = (operationId: string) =>
    mockTool(understudy.world.bind(), { mode: 'sync', operation: { packageId: 'repo', operationId } });

  it('snapshots links by target without following them, and files with their executable bit', () => {
    const ws = understudy.world.workspace('repo');
    symlinkSync('/etc', join(ws.dir, 'etc'));
    chmodSync(join(ws.dir, 'package.json'), 0o755);
    renameSync(join(ws.dir, 'NOTES.md'), join(ws.dir, 'src', 'NOTES.md'));
    rmSync(join(ws.dir, 'src', 'greet.ts'));
    writeFileSync(join(ws.dir, 'src', 'greet.ts'), readFileSync(join(ws.dir, 'src', 'NOTES.md')));
    expect(ws.files()).toContain('etc');
    expect(ws.files().some((f) => f.startsWith('etc/'))).toBe(false);
    expect(ws.changes().map((c) => [c.path, c.change])).toEqual([
      ['NOTES.md', 'deleted'],
      ['etc', 'added'],
      ['package.json', 'modified'],
      ['src/NOTES.md', 'added'],
      ['src/greet.ts', 'modified'],
    ]);
    expect(statSync(join(ws.dir, 'package.json')).mode & 0o100).not.toBe(0);
  });

  it('write_file through a link inside the folder names the file it wrote, as the folder does', async () => {
    const ws = understudy.world.workspace('repo');
    symlinkSync('src', join(ws.dir, 'inner'));
    const run = await understudy.run(() => tool('write_file')({ path: 'inner/greet.ts', content: 'x\n' }));
    expect(run.operations[0].files?.map((c) => c.path)).toEqual(['src/greet.ts']);
    expect(run.files?.map((c) => c.path)).toEqual(['src/greet.ts']);
  });
});
