/**
 * Workspace packages: a file tree copied into a fresh folder per test and drill trial, the
 * built-in file tools through the engine (confined to the folder; overrides, faults and
 * budgets apply), each change as a unified diff in the evidence, and file criteria that
 * read the folder itself (so changes made around the tools count too).
 *
 * @understudy-world ../../../../../fixtures/worlds/workspace.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mockTool, runDrills, ToolMockError, understudy } from 'jest-understudy';
import { getRuntime } from '../../../../../src/sandbox/runtime';
import { renderTimeline } from '../../../../../src/trace/html';
import { testTrace } from '../../../../../src/trace/otlp';
import { readTrace } from '../../../../../src/trace/read';

const REPO = join(__dirname, '..', '..', '..', '..', '..', 'fixtures', 'worlds', 'workspace-repo');
const GREET = readFileSync(join(REPO, 'src/greet.ts'), 'utf8');

/** A sync callable for one workspace operation, as an agent's tool would call it. */
const tool = (operationId: string) =>
  mockTool(understudy.world.bind(), { mode: 'sync', operation: { packageId: 'repo', operationId } });

/** The envelope code a failing call throws. */
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolMockError) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      hash.update(p);
      if (e.isDirectory()) walk(p);
      else hash.update(readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

let outside: string;
const repoBefore = treeHash(REPO);
beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), 'understudy-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'not yours\n');
});
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  // Nothing the tests did reached the fixture folder the tree is copied from.
  expect(treeHash(REPO)).toBe(repoBefore);
});

describe('the workspace folder', () => {
  let firstDir = '';

  it('holds the tree (the from folder, then the inline files) in a temporary folder', () => {
    const ws = understudy.world.workspace('repo');
    expect(ws.files()).toEqual(['NOTES.md', 'package.json', 'src/app.ts', 'src/greet.ts']);
    expect(ws.read('src/greet.ts')).toBe(GREET);
    expect(ws.read('NOTES.md')).toBe('Greeting says Hello.\n');
    expect(ws.dir.startsWith(tmpdir()) || ws.dir.includes('understudy-repo-')).toBe(true);
    expect(ws.diff()).toBe('');
    tool('write_file')({ path: 'scratch.txt', content: 'x\n' });
    writeFileSync(join(ws.dir, 'direct.txt'), 'written around the tools\n');
    firstDir = ws.dir;
  });

  it('is fresh in the next test, and the last test’s folder is gone', () => {
    const ws = understudy.world.workspace('repo');
    expect(ws.dir).not.toBe(firstDir);
    expect(existsSync(firstDir)).toBe(false);
    expect(ws.files()).toEqual(['NOTES.md', 'package.json', 'src/app.ts', 'src/greet.ts']);
  });

  it('world.reset() starts over from the tree, in a new folder', () => {
    const ws = understudy.world.workspace('repo');
    const before = ws.dir;
    tool('write_file')({ path: 'src/greet.ts', content: 'broken\n' });
    understudy.world.reset();
    expect(existsSync(before)).toBe(false);
    expect(ws.dir).not.toBe(before);
    expect(ws.read('src/greet.ts')).toBe(GREET);
  });

  it('diff() and changes() show every change since the copy, whoever made it', () => {
    const ws = understudy.world.workspace('repo');
    writeFileSync(join(ws.dir, 'src/greet.ts'), GREET.replace('Hello', 'Hi'));
    rmSync(join(ws.dir, 'NOTES.md'));
    writeFileSync(join(ws.dir, 'new.txt'), 'new\n');
    expect(ws.changes().map((c) => [c.path, c.change])).toEqual([
      ['NOTES.md', 'deleted'],
      ['new.txt', 'added'],
      ['src/greet.ts', 'modified'],
    ]);
    expect(ws.diff()).toBe(
      [
        '--- a/NOTES.md',
        '+++ /dev/null',
        '@@ -1,1 +0,0 @@',
        '-Greeting says Hello.',
        '--- /dev/null',
        '+++ b/new.txt',
        '@@ -0,0 +1,1 @@',
        '+new',
        '--- a/src/greet.ts',
        '+++ b/src/greet.ts',
        '@@ -1,3 +1,3 @@',
        ' export function greet(name: string): string {',
        "-  return 'Hello, ' + name;",
        "+  return 'Hi, ' + name;",
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('read(path) refuses paths out of the folder and files that are not there', () => {
    const ws = understudy.world.workspace('repo');
    expect(() => ws.read('../secret.txt')).toThrow('"../secret.txt" goes up with ".."');
    expect(() => ws.read('nope.ts')).toThrow('"nope.ts" is not a file in the workspace');
    expect(() => understudy.world.workspace('nope')).toThrow(
      'world "workspace" has no workspace package "nope" (its workspaces: "repo")',
    );
  });
});

describe('the file tools', () => {
  it('read_file reads a file, or some of its lines', () => {
    expect(tool('read_file')({ path: 'src/greet.ts' })).toEqual({ path: 'src/greet.ts', content: GREET });
    expect(tool('read_file')({ path: './src//greet.ts', offset: 2, limit: 1 })).toEqual({
      path: 'src/greet.ts',
      content: "  return 'Hello, ' + name;",
    });
    expect(codeOf(() => tool('read_file')({ path: 'src/nope.ts' }))).toBe('NOT_FOUND');
    expect(codeOf(() => tool('read_file')({ path: 'src' }))).toBe('NOT_A_FILE');
    expect(codeOf(() => tool('read_file')({ path: 'package.json/x' }))).toBe('NOT_FOUND');
    expect(() => understudy.world.workspace('repo').read('package.json/x')).toThrow('is not a file');
    expect(codeOf(() => tool('read_file')({ file: 'src/greet.ts' }))).toBe('INVALID_INPUT');
  });

  it('write_file creates (with its folders) or replaces a file, and the evidence holds the diff', () => {
    expect(tool('write_file')({ path: 'docs/a/b.md', content: 'one\n' })).toEqual({
      path: 'docs/a/b.md',
      created: true,
    });
    expect(tool('write_file')({ path: 'docs/a/b.md', content: 'two\n' })).toEqual({
      path: 'docs/a/b.md',
      created: false,
    });
    expect(understudy.world.workspace('repo').read('docs/a/b.md')).toBe('two\n');
    const [created, replaced] = understudy.world.operations;
    expect(created.files).toEqual([
      {
        packageId: 'repo',
        path: 'docs/a/b.md',
        change: 'added',
        diff: '--- /dev/null\n+++ b/docs/a/b.md\n@@ -0,0 +1,1 @@\n+one\n',
      },
    ]);
    expect(replaced.files?.[0].diff).toBe(
      '--- a/docs/a/b.md\n+++ b/docs/a/b.md\n@@ -1,1 +1,1 @@\n-one\n+two\n',
    );
    expect(codeOf(() => tool('write_file')({ path: 'src', content: '' }))).toBe('NOT_A_FILE');
    expect(codeOf(() => tool('write_file')({ path: 'package.json/x', content: '' }))).toBe('NOT_A_DIRECTORY');
  });

  it('edit_file replaces one occurrence; a missing or ambiguous old_string is an error and changes nothing', () => {
    const edit = tool('edit_file');
    expect(
      edit({ path: 'src/greet.ts', old_string: "'Hello, ' + name", new_string: "'Hello, ' + name + '!'" }),
    ).toEqual({ path: 'src/greet.ts', replacements: 1 });
    expect(understudy.world.workspace('repo').read('src/greet.ts')).toContain("'Hello, ' + name + '!'");

    expect(codeOf(() => edit({ path: 'src/greet.ts', old_string: 'Goodbye', new_string: 'x' }))).toBe(
      'EDIT_NO_MATCH',
    );
    writeFileSync(join(understudy.world.workspace('repo').dir, 'twice.txt'), 'a b a\n');
    expect(codeOf(() => edit({ path: 'twice.txt', old_string: 'a', new_string: 'c' }))).toBe(
      'EDIT_AMBIGUOUS',
    );
    expect(understudy.world.workspace('repo').read('twice.txt')).toBe('a b a\n');
    expect(edit({ path: 'twice.txt', old_string: 'a', new_string: '$&$1', replace_all: true })).toEqual({
      path: 'twice.txt',
      replacements: 2,
    });
    // Replacement text is taken literally (no `$&` patterns).
    expect(understudy.world.workspace('repo').read('twice.txt')).toBe('$&$1 b $&$1\n');
    const failed = understudy.world.operations.filter((op) => op.outcome.kind === 'error');
    expect(failed.map((op) => [op.outcome.kind === 'error' && op.outcome.error.message, op.files])).toEqual([
      ['old_string does not occur in src/greet.ts', undefined],
      [
        'old_string occurs 2 times in twice.txt: give more of the surrounding text, or replace_all',
        undefined,
      ],
    ]);
    expect(codeOf(() => edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' }))).toBe('NOT_FOUND');
  });

  it('list_dir, glob and grep', () => {
    expect(tool('list_dir')({})).toEqual({
      path: '.',
      entries: [
        { name: 'NOTES.md', type: 'file' },
        { name: 'package.json', type: 'file' },
        { name: 'src', type: 'directory' },
      ],
    });
    expect(tool('list_dir')({ path: 'src' }).entries.map((e: { name: string }) => e.name)).toEqual([
      'app.ts',
      'greet.ts',
    ]);
    expect(codeOf(() => tool('list_dir')({ path: 'package.json' }))).toBe('NOT_A_DIRECTORY');
    expect(tool('glob')({ pattern: '**/*.ts' })).toEqual({ files: ['src/app.ts', 'src/greet.ts'] });
    expect(tool('glob')({ pattern: '*.ts', path: 'src' })).toEqual({ files: ['src/app.ts', 'src/greet.ts'] });
    expect(tool('grep')({ pattern: "greet\\('" })).toEqual({
      matches: [{ path: 'src/app.ts', line: 4, text: "  return greet('world');" }],
    });
    expect(tool('grep')({ pattern: 'HELLO', ignore_case: true, glob: '**/*.md' })).toEqual({
      matches: [{ path: 'NOTES.md', line: 1, text: 'Greeting says Hello.' }],
    });
    expect(codeOf(() => tool('grep')({ pattern: '(' }))).toBe('INVALID_INPUT');
  });
});

describe('confinement', () => {
  it('refuses absolute paths and ".." with OUTSIDE_WORKSPACE', () => {
    for (const path of ['../secret.txt', 'src/../../x', '/etc/passwd', '\\\\server\\share', 'C:\\x'])
      expect([path, codeOf(() => tool('read_file')({ path }))]).toEqual([path, 'OUTSIDE_WORKSPACE']);
    expect(codeOf(() => tool('write_file')({ path: '../escaped.txt', content: 'x' }))).toBe(
      'OUTSIDE_WORKSPACE',
    );
    expect(codeOf(() => tool('glob')({ pattern: '../*' }))).toBe('OUTSIDE_WORKSPACE');
    expect(codeOf(() => tool('list_dir')({ path: '..' }))).toBe('OUTSIDE_WORKSPACE');
    expect(existsSync(join(understudy.world.workspace('repo').dir, '..', 'escaped.txt'))).toBe(false);
  });

  it('follows symbolic links only while they stay inside the folder', () => {
    const { dir } = understudy.world.workspace('repo');
    symlinkSync(outside, join(dir, 'out'));
    symlinkSync(join(outside, 'missing.txt'), join(dir, 'dangling'));
    symlinkSync('src', join(dir, 'inner'));
    expect(codeOf(() => tool('read_file')({ path: 'out/secret.txt' }))).toBe('OUTSIDE_WORKSPACE');
    expect(codeOf(() => tool('write_file')({ path: 'out/new.txt', content: 'x' }))).toBe('OUTSIDE_WORKSPACE');
    expect(codeOf(() => tool('write_file')({ path: 'dangling', content: 'x' }))).toBe('OUTSIDE_WORKSPACE');
    expect(
      codeOf(() => tool('edit_file')({ path: 'out/secret.txt', old_string: 'not', new_string: '' })),
    ).toBe('OUTSIDE_WORKSPACE');
    expect(codeOf(() => tool('list_dir')({ path: 'out' }))).toBe('OUTSIDE_WORKSPACE');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(join(outside, 'missing.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('not yours\n');
    // grep and glob do not read or list through the escaping link.
    expect(tool('grep')({ pattern: 'yours' })).toEqual({ matches: [] });
    expect(tool('glob')({ pattern: '**/secret.txt' })).toEqual({ files: [] });
    // A link inside the folder is fine.
    expect(tool('read_file')({ path: 'inner/greet.ts' }).content).toBe(GREET);
  });

  it('deleting the folder at the end of the test removes links, never what they point to', () => {
    const { dir } = understudy.world.workspace('repo');
    symlinkSync(outside, join(dir, 'out'));
    understudy.world.reset();
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('not yours\n');
  });
});

describe('through the world engine', () => {
  it('budgets: the world allows four write_file calls per test', () => {
    const write = tool('write_file');
    for (const path of ['a', 'b', 'd', 'e']) write({ path, content: '' });
    expect(codeOf(() => write({ path: 'c', content: '' }))).toBe('BUDGET_EXCEEDED');
    expect(understudy.world.workspace('repo').files()).not.toContain('c');
  });

  it('tool overrides and faults: the file stays as it was', () => {
    understudy.world.reset({
      scenario: {
        toolOverrides: [
          {
            operation: { packageId: 'repo', operationId: 'edit_file' },
            times: 1,
            outcome: { kind: 'error', code: 'EDIT_NO_MATCH', message: 'the file changed under you' },
          },
        ],
        faults: [
          {
            operation: { packageId: 'repo', operationId: 'read_file' },
            kind: 'error',
            code: 'NOT_FOUND',
            onCalls: [1],
          },
        ],
      },
    });
    const args = { path: 'src/greet.ts', old_string: 'Hello', new_string: 'Hi' };
    expect(codeOf(() => tool('edit_file')(args))).toBe('EDIT_NO_MATCH');
    expect(understudy.world.workspace('repo').read('src/greet.ts')).toBe(GREET);
    expect(tool('edit_file')(args)).toEqual({ path: 'src/greet.ts', replacements: 1 });
    expect(codeOf(() => tool('read_file')({ path: 'src/greet.ts' }))).toBe('NOT_FOUND');
    expect(tool('read_file')({ path: 'src/greet.ts' }).content).toContain("'Hi, '");
    expect(
      understudy.world.operations.map((op) => [op.operationId, op.override?.scope, op.faults?.length]),
    ).toEqual([
      ['edit_file', 'test', undefined],
      ['edit_file', undefined, undefined],
      ['read_file', undefined, 1],
      ['read_file', undefined, undefined],
    ]);
  });

  it('over MCP: the six tools, and a call that edits the folder', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(understudy.world.mcpTransport('repo'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'glob',
      'grep',
    ]);
    const result = await client.callTool({
      name: 'edit_file',
      arguments: { path: 'src/greet.ts', old_string: 'Hello', new_string: 'Howdy' },
    });
    expect(result.isError).toBeFalsy();
    expect(understudy.world.workspace('repo').read('src/greet.ts')).toContain("'Howdy, '");
    expect(understudy.world.operations[0]).toMatchObject({
      transport: 'mcp',
      files: [{ path: 'src/greet.ts' }],
    });
    await client.close();
  });
});

describe('runs', () => {
  it('run.files lists what the run changed, through the tools or around them', async () => {
    const run = await understudy.run(async () => {
      tool('edit_file')({ path: 'src/greet.ts', old_string: 'Hello', new_string: 'Hi' });
      writeFileSync(join(understudy.world.workspace('repo').dir, 'package.json'), '{}\n');
    });
    expect(run.files?.map((f) => [f.path, f.change])).toEqual([
      ['package.json', 'modified'],
      ['src/greet.ts', 'modified'],
    ]);
    expect(run.operations[0].files?.[0].path).toBe('src/greet.ts');
    expect(run).toHaveChangedFiles(['src/greet.ts', 'package.json']);
    expect(run).not.toHaveChangedFiles(['src/greet.ts']);
    expect(() => expect(run).toHaveChangedFiles(['src/greet.ts'])).toThrow(
      /Changed, but not expected:\npackage\.json \(modified\)\n--- a\/package\.json/,
    );
  });

  it('a second run counts only its own changes; a run that changes nothing has none', async () => {
    await understudy.run(async () => tool('write_file')({ path: 'first.txt', content: '1' }));
    const second = await understudy.run(async () => tool('write_file')({ path: 'second.txt', content: '2' }));
    expect(second).toHaveChangedFiles(['second.txt']);
    const idle = await understudy.run(async () => tool('read_file')({ path: 'first.txt' }));
    expect(idle.files).toEqual([]);
    expect(idle).toHaveChangedFiles([]);
    expect(() => expect(idle).toHaveChangedFiles(['first.txt'])).toThrow('Not changed: first.txt');
  });

  it('the matcher refuses what is not a run with files', () => {
    expect(() => expect({ toolCalls: [] }).toHaveChangedFiles([])).toThrow(
      'value must be a Run of a world with a workspace package',
    );
    expect(() => expect({ files: [] }).not.toHaveChangedFiles('src/app.ts' as never)).toThrow(
      'must be an array of workspace paths',
    );
  });
});

describe('drills', () => {
  const edit = (old_string: string, new_string: string, path = 'src/greet.ts') =>
    tool('edit_file')({ path, old_string, new_string });

  it('passes when the agent edits only what it should', async () => {
    const result = await runDrills({
      drill: 'exclaim',
      agent: async ({ binding }) =>
        mockTool(binding, { mode: 'sync', operation: { packageId: 'repo', operationId: 'edit_file' } })({
          path: 'src/greet.ts',
          old_string: '+ name',
          new_string: "+ name + '!'",
        }),
    });
    expect(result).toHavePassedDrill();
    expect(result.runs[0]).toHaveChangedFiles(['src/greet.ts']);
  });

  it('fails, saying why, when the agent also touches package.json (even around the tools)', async () => {
    const result = await runDrills({
      drill: 'exclaim',
      agent: async ({ world }) => {
        const { dir } = world.workspace('repo');
        writeFileSync(join(dir, 'src/greet.ts'), GREET.replace('+ name', "+ name + '!'"));
        writeFileSync(join(dir, 'package.json'), '{ "name": "greeter", "version": "2.0.0" }\n');
      },
    });
    expect(result.verdict).toBe('failed');
    expect(result.reasons).toEqual([
      expect.stringMatching(
        /^package\.json unchanged: it was modified:\n--- a\/package\.json\n\+\+\+ b\/package\.json\n/,
      ),
      'no file changed outside src/**: changed outside: package.json (modified)',
    ]);
  });

  it('fails when the file does not hold the change; each trial has a fresh folder', async () => {
    const dirs: string[] = [];
    const result = await runDrills({
      drill: 'exclaim',
      trials: 2,
      agent: async ({ world, binding, trial }) => {
        dirs.push(world.workspace('repo').dir);
        expect(world.workspace('repo').read('src/greet.ts')).toBe(GREET);
        if (trial === 0)
          mockTool(binding, { mode: 'sync', operation: { packageId: 'repo', operationId: 'write_file' } })({
            path: 'src/greet.ts',
            content: 'wrong\n',
          });
      },
    });
    expect(dirs[0]).not.toBe(dirs[1]);
    expect(dirs.map((d) => existsSync(d))).toEqual([false, false]);
    expect(result.reasons).toEqual([
      `trial 1: src/greet.ts contains "'Hello, ' + name + '!'": src/greet.ts holds "wrong\\n"`,
      `trial 2: src/greet.ts contains "'Hello, ' + name + '!'": src/greet.ts holds ${JSON.stringify(GREET)}`,
    ]);
  });

  it('a drill trial’s folder is not the test’s', async () => {
    const mine = understudy.world.workspace('repo');
    edit('Hello', 'Hi');
    await runDrills({
      drill: 'exclaim',
      agent: async ({ world }) => {
        expect(world.workspace('repo').dir).not.toBe(mine.dir);
        expect(world.workspace('repo').read('src/greet.ts')).toBe(GREET);
      },
    });
    expect(mine.read('src/greet.ts')).toContain("'Hi, '");
  });
});

describe('the tree is read once, and never written', () => {
  it('a file added to the from folder after loading is not in the workspace', () => {
    const extra = join(REPO, 'src', '.late.ts');
    mkdirSync(join(REPO, 'src'), { recursive: true });
    writeFileSync(extra, 'late');
    try {
      expect(understudy.world.workspace('repo').files()).not.toContain('src/.late.ts');
    } finally {
      rmSync(extra);
    }
  });
});

describe('the trace and the timeline', () => {
  it('carry each change as a diff: on the operation, and on the run', async () => {
    await understudy.run(async () => {
      tool('edit_file')({ path: 'src/greet.ts', old_string: "'Hello, '", new_string: "'Hi, '" });
      writeFileSync(join(understudy.world.workspace('repo').dir, 'package.json'), '{}\n');
    });
    const evidence = getRuntime().testEvidence();
    const [run] = evidence.runs;
    expect(run.operations[0].files).toEqual([expect.objectContaining({ path: 'src/greet.ts' })]);
    expect(run.files?.map((f) => f.path)).toEqual(['package.json', 'src/greet.ts']);
    const trace = testTrace({ file: 'w.test.ts', name: 'edits', status: 'failed', errors: [] }, evidence);
    const page = renderTimeline(readTrace(JSON.stringify(trace)));
    expect(page).toContain('Files the run changed (2)');
    expect(page).toContain('<h4>Files changed</h4>');
    expect(page).toContain(`<span class="del">-  return &#39;Hello, &#39; + name;</span>`);
    expect(page).toContain(`<span class="add">+  return &#39;Hi, &#39; + name;</span>`);
    expect(page).toContain('<span class="add">+{}</span>');
  });
});
