/**
 * Workspace packages in world files: what loads, and every bad input named by the world
 * file and the JSON path (a missing `from`, a file outside the tree, a link in the tree,
 * fields that belong elsewhere); a refused world is not loaded at all.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { understudy, WorldFileError } from 'jest-understudy';
import { tempFolder, thrown } from '../../../../support/temp';

let folder: ReturnType<typeof tempFolder>;
beforeEach(() => {
  folder = tempFolder();
});
afterEach(() => folder.remove());

function problems(text: string): { message: string; issues: Array<{ path: string; message: string }> } {
  const file = folder.write('ws.world.yaml', text);
  const error = thrown(() => understudy.world.load(file));
  if (!(error instanceof WorldFileError)) throw error;
  expect(error.message).toContain(file);
  return { message: error.message, issues: error.issues.map((i) => ({ path: i.path, message: i.message })) };
}

const workspace = (extra: string) => `packages:
  - id: repo
    kind: workspace
    bindings: [direct]
${extra}`;

describe('workspace packages in world files', () => {
  it('load with from (relative to the world file), files, both, or neither', () => {
    mkdirSync(folder.path('tree/src'), { recursive: true });
    writeFileSync(folder.path('tree/src/a.ts'), 'a');
    const file = folder.write(
      'ok.world.yaml',
      workspace('    from: ./tree\n    files: { "src/b.ts": "b", "src/a.ts": "A" }\n'),
    );
    understudy.world.load(file);
    const ws = understudy.world.workspace('repo');
    expect(ws.files()).toEqual(['src/a.ts', 'src/b.ts']);
    expect(ws.read('src/a.ts')).toBe('A');
    understudy.world.load(folder.write('empty.world.yaml', workspace('')));
    expect(understudy.world.workspace('repo').files()).toEqual([]);
  });

  it('may list some of the file tools, with their own tool names', () => {
    understudy.world.load(
      folder.write(
        'ro.world.yaml',
        workspace(
          '    files: { a.txt: a }\n    operations:\n      - { id: read_file, toolNames: [Read] }\n      - id: grep\n',
        ),
      ),
    );
    expect(() => understudy.world.workspace('repo') && understudy.world.bind() && null).not.toThrow();
    const { issues } = problems(
      workspace(
        '    operations:\n      - id: delete_file\n      - id: read_file\n        input: { type: object }\n',
      ),
    );
    expect(issues).toEqual([
      {
        path: '$.packages[0].operations[0].id',
        message: `a workspace package's operations are its built-in file tools; "delete_file" is not one`,
      },
      { path: '$.packages[0].operations[1].input', message: 'the input of the built-in read_file is fixed' },
    ]);
  });

  it('a missing from folder, named with the world file and the JSON path', () => {
    const { message, issues } = problems(workspace('    from: ./nope\n'));
    expect(issues).toEqual([
      { path: '$.packages[0].from', message: `${folder.path('nope')} does not exist` },
    ]);
    expect(message).toContain('"from" names a folder, relative to the world file');
    writeFileSync(folder.path('plain'), 'x');
    expect(problems(workspace('    from: ./plain\n')).issues[0].message).toBe(
      `${folder.path('plain')} is not a folder`,
    );
  });

  it('files outside the tree', () => {
    const { issues } = problems(
      workspace(
        '    files:\n      "../x.ts": a\n      "/etc/passwd": b\n      "src/../../y": c\n      ".": d\n',
      ),
    );
    expect(issues).toEqual([
      {
        path: '$.packages[0].files["../x.ts"]',
        message: '"../x.ts" is outside the tree: it goes up with ".."',
      },
      {
        path: '$.packages[0].files["/etc/passwd"]',
        message: '"/etc/passwd" is outside the tree: it is absolute',
      },
      {
        path: '$.packages[0].files["src/../../y"]',
        message: '"src/../../y" is outside the tree: it goes up with ".."',
      },
      {
        path: '$.packages[0].files["."]',
        message: '"." is outside the tree: it names the workspace folder itself',
      },
    ]);
  });

  it('a symbolic link in the from folder, and a file that would have to be a folder', () => {
    mkdirSync(folder.path('tree'));
    symlinkSync('/etc', folder.path('tree/etc'));
    writeFileSync(folder.path('tree/src'), 'a file');
    const { issues } = problems(workspace('    from: ./tree\n    files: { "src/a.ts": "a" }\n'));
    // In line order: `from` comes first in the file.
    expect(issues).toEqual([
      {
        path: '$.packages[0].from',
        message: `etc in ${folder.path('tree')} is a symbolic link that points outside the tree: a workspace copies files and folders only`,
      },
      {
        path: '$.packages[0].files["src/a.ts"]',
        message: 'src is a file, and src/a.ts would need it to be a folder',
      },
    ]);
    const clash = problems(workspace('    files: { "src": "a", "src/a.ts": "b" }\n'));
    expect(clash.issues).toEqual([
      {
        path: '$.packages[0].files["src/a.ts"]',
        message: 'src is a file, and src/a.ts would need it to be a folder',
      },
    ]);
  });

  it('fields that belong to a workspace, and state a workspace cannot have', () => {
    const { issues } = problems(`packages:
  - id: api
    kind: service
    bindings: [direct]
    from: ./tree
    operations: []
  - id: repo
    kind: workspace
    bindings: [direct]
    state: { files: {} }
`);
    expect(issues).toEqual([
      {
        path: '$.packages[0].from',
        message: '"from" belongs to a package of kind "workspace"; this one is "service"',
      },
      {
        path: '$.packages[1].state',
        message: 'a workspace package has no collections: its state is its file tree',
      },
    ]);
    // Only a workspace may leave its operations out.
    expect(problems('packages:\n  - { id: api, kind: service, bindings: [direct] }\n').message).toMatch(
      /\$\.packages\[0\].*operations/,
    );
  });

  it('file criteria: a workspace to read, relative paths, one check, a valid pattern', () => {
    const drill = (success: string, extra = '    files: { a.txt: a }\n') =>
      `${workspace(extra)}drills:\n  d:\n    instruction: go\n    success:\n${success}`;
    expect(
      problems(
        `packages:\n  - { id: api, kind: service, bindings: [direct], operations: [] }\ndrills:\n  d:\n    instruction: go\n    success:\n      - fileUnchanged: a.txt\n`,
      ).issues,
    ).toEqual([
      {
        path: '$.drills.d.success[0]',
        message: 'a file criterion needs a workspace, and this world has no package of kind "workspace"',
      },
    ]);
    expect(
      problems(
        drill(
          '      - { file: ../a.txt, contains: a }\n      - { file: a.txt }\n      - { file: a.txt, matches: "(" }\n      - { noChangesOutside: ["/src/**"] }\n      - { file: a.txt, equals: 1 }\n      - { fileUnchanged: a.txt, workspace: nope }\n      - { state: $.repo, matches: x }\n',
        ),
      ).issues.map((i) => `${i.path}: ${i.message}`),
    ).toEqual([
      '$.drills.d.success[0].file: "../a.txt" is outside the workspace: it goes up with ".."',
      '$.drills.d.success[1]: a file criterion says nothing about the file',
      expect.stringMatching(/^\$\.drills\.d\.success\[2\]\.matches: not a regular expression: /),
      '$.drills.d.success[3].noChangesOutside[0]: "/src/**" is outside the workspace: it is absolute',
      `$.drills.d.success[4].equals: a file criterion's "equals" is a string (the file's text)`,
      '$.drills.d.success[5].workspace: "nope" is not a workspace package of this world',
      '$.drills.d.success[6].matches: "matches" belongs to a "file" criterion',
    ]);
  });

  it('nothing is half-loaded: a refused workspace world leaves the loaded world in place', () => {
    understudy.world.load(folder.write('good.world.yaml', workspace('    files: { a.txt: a }\n')));
    problems(workspace('    from: ./nope\n'));
    expect(understudy.world.workspace('repo').files()).toEqual(['a.txt']);
  });
});
