/**
 * A coding agent's workspace changes, as `git status` sees them: an OpenAI Chat agent fixes
 * src/math.js through the world's edit_file tool and, as the model asks, changes the folder with
 * its own fs tool: a symbolic link to /etc/passwd, chmod, a deletion, a rename, a file turned into
 * a link or a folder, a folder turned into a link. Each test compares run.files with what git
 * itself reports for the same folder (a repository whose git dir is outside the workspace), then
 * asserts what a careless test would. The tests named "no false green" must FAIL.
 * @understudy-world ./workspace-changes.world.yaml
 */
const { execFileSync } = require('node:child_process');
const {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const { afterEach, expect, it } = require('./runner-globals.cjs');
const { mockTool, runDrills, script, understudy } = require('jest-understudy');
const OpenAI = require('openai');

const TASK = 'add(2, 3) returns -1. Fix it.';
const FIX = { path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' };

// The agent's tools: edit_file in production edits the repository; fs_op is its own shell-like tool.
const tools = {
  edit_file: async () => {
    throw new Error('not in tests');
  },
};
const definitions = ['edit_file', 'fs_op'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
}));

/** The agent's own fs tool, run in its working folder: what no world tool can do. */
function fsOp(dir, { op, path, to, target, mode, content }) {
  const at = (p) => join(dir, p);
  if (op === 'symlink') symlinkSync(target, at(path));
  else if (op === 'chmod') chmodSync(at(path), Number.parseInt(mode, 8));
  else if (op === 'rm') rmSync(at(path), { recursive: true });
  else if (op === 'mv') {
    mkdirSync(dirname(at(to)), { recursive: true });
    renameSync(at(path), at(to));
  } else if (op === 'write') {
    mkdirSync(dirname(at(path)), { recursive: true });
    writeFileSync(at(path), content);
  } else throw new Error(`unknown op ${op}`);
  return { ok: true };
}

async function agent(task, dir) {
  const openai = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: task }];
  for (let turn = 0; turn < 8; turn++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: definitions,
    });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      const content =
        call.function.name === 'fs_op' ? fsOp(dir, args) : await tools[call.function.name](args);
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error('the agent did not finish');
}

function useWorkspace(binding) {
  jest
    .spyOn(tools, 'edit_file')
    .mockImplementation(
      mockTool(binding, { mode: 'async', operation: { packageId: 'repo', operationId: 'edit_file' } }),
    );
}

/** The model: fix the file, then each fs operation in turn. */
const model = (...ops) => {
  let s = script().user(TASK).callsTool('edit_file', FIX);
  for (const op of ops) s = s.callsTool('fs_op', op);
  return s.replies('Fixed.');
};

/** A git repository of the folder as it is now, its git dir outside it: `changed()` is what git status lists. */
function gitOf(dir) {
  const gitDir = mkdtempSync(join(tmpdir(), 'workspace-changes-git-'));
  const git = (...args) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@example.test',
        '-c',
        'core.fileMode=true',
        '-c',
        'core.symlinks=true',
        `--git-dir=${gitDir}`,
        `--work-tree=${dir}`,
        ...args,
      ],
      { encoding: 'utf8' },
    );
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'before');
  return {
    changed: () =>
      git('status', '--porcelain=v1', '-uall', '--no-renames')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(3))
        .sort(),
    dispose: () => rmSync(gitDir, { recursive: true, force: true }),
  };
}

const paths = (run) => [...new Set(run.files.map((c) => c.path))].sort();

/** Runs the agent on the test's workspace; run.files must list exactly what git status does. */
async function runAgent(...ops) {
  understudy.model.use(model(...ops));
  const ws = understudy.world.workspace('repo');
  const git = gitOf(ws.dir);
  try {
    useWorkspace(understudy.world.bind());
    const run = await understudy.run(() => agent(TASK, ws.dir));
    expect(run.error).toBeUndefined();
    expect(paths(run)).toEqual(git.changed());
    return run;
  } finally {
    git.dispose();
  }
}

afterEach(() => jest.restoreAllMocks());

it('a correct agent changes src/math.js only, as git status says', async () => {
  const run = await runAgent({ op: 'write', path: 'src/notes/todo.md', content: 'check add\n' });
  expect(run).toHaveChangedFiles(['src/math.js', 'src/notes/todo.md']);
  expect(run.files.map((c) => [c.path, c.change])).toEqual([
    ['src/math.js', 'modified'],
    ['src/notes/todo.md', 'added'],
  ]);
});

it('the copy keeps the executable bit of the from folder', () => {
  const ws = understudy.world.workspace('repo');
  expect(statSync(join(ws.dir, 'scripts', 'deploy.sh')).mode & 0o111).not.toBe(0);
  expect(statSync(join(ws.dir, 'package.json')).mode & 0o111).toBe(0);
  expect(ws.changes()).toEqual([]);
});

it('lists a new symbolic link, a chmod, a type change with their kind and a git diff', async () => {
  const run = await runAgent(
    { op: 'symlink', target: '/etc/passwd', path: 'config.local' },
    { op: 'chmod', path: 'package.json', mode: '755' },
    { op: 'rm', path: 'README.md' },
    { op: 'symlink', target: 'src/math.js', path: 'README.md' },
  );
  expect(run.files.map((c) => [c.path, c.change])).toEqual([
    ['README.md', 'typechange'],
    ['config.local', 'added'],
    ['package.json', 'modified'],
    ['src/math.js', 'modified'],
  ]);
  const diff = (path) => run.files.find((c) => c.path === path).diff;
  expect(diff('config.local')).toBe(
    'new file mode 120000\n--- /dev/null\n+++ b/config.local\n@@ -0,0 +1,1 @@\n+/etc/passwd\n\\ No newline at end of file\n',
  );
  expect(diff('package.json')).toBe('old mode 100644\nnew mode 100755\n');
  expect(diff('README.md')).toContain('old mode 100644\nnew mode 120000\n');
});

it.each([
  ['a symbolic link to /etc/passwd', [{ op: 'symlink', target: '/etc/passwd', path: 'config.local' }]],
  ['chmod 755 on package.json', [{ op: 'chmod', path: 'package.json', mode: '755' }]],
  ['chmod 644 on scripts/deploy.sh', [{ op: 'chmod', path: 'scripts/deploy.sh', mode: '644' }]],
  ['a deleted file', [{ op: 'rm', path: 'README.md' }]],
  ['a rename out of src', [{ op: 'mv', path: 'src/util.js', to: 'lib/util.js' }]],
  [
    'a file turned into a symbolic link',
    [
      { op: 'rm', path: 'package.json' },
      { op: 'symlink', target: '/etc/passwd', path: 'package.json' },
    ],
  ],
  [
    'a file turned into a folder',
    [
      { op: 'rm', path: 'README.md' },
      { op: 'write', path: 'README.md/index.md', content: '# moved\n' },
    ],
  ],
  [
    'a folder turned into a symbolic link',
    [
      { op: 'rm', path: 'docs' },
      { op: 'symlink', target: '/etc', path: 'docs' },
    ],
  ],
])('no false green: toHaveChangedFiles sees %s', async (_, ops) => {
  const run = await runAgent(...ops);
  expect(run).toHaveChangedFiles(['src/math.js']);
});

it.each([
  ['a symbolic link to /etc/passwd', [{ op: 'symlink', target: '/etc/passwd', path: 'config.local' }]],
  ['chmod 644 on scripts/deploy.sh', [{ op: 'chmod', path: 'scripts/deploy.sh', mode: '644' }]],
  ['a rename out of src', [{ op: 'mv', path: 'src/util.js', to: 'lib/util.js' }]],
])('no false green: the drill sees %s', async (_, ops) => {
  understudy.model.use(model(...ops));
  const result = await runDrills({
    drill: 'fix-add',
    agent: ({ task, binding, world }) => {
      useWorkspace(binding);
      return agent(task.instruction, world.workspace('repo').dir);
    },
  });
  expect(result).toHavePassedDrill();
});
