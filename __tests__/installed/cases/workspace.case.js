/**
 * Workspace packages from the installed package: an OpenAI Chat agent whose file tools are
 * the workspace operations (mockTool) edits a copy of ./workspace-repo; drill criteria and
 * toHaveChangedFiles read the files it left. The tests named "no false green" must FAIL.
 * @understudy-world ./workspace.world.yaml
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { afterEach, expect, it } = require('./runner-globals.cjs');
const { mockTool, runDrills, script, understudy } = require('jest-understudy');
const OpenAI = require('openai');

const TASK = 'add(2, 3) returns -1. Fix it.';
const FIX = { path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' };
const BUMP = { path: 'package.json', old_string: '"1.0.0"', new_string: '"1.0.1"' };

// The agent's own tools (fs in production); the tests serve them from the workspace.
const tools = {
  read_file: async () => {
    throw new Error('not in tests');
  },
  edit_file: async () => {
    throw new Error('not in tests');
  },
};
const definitions = Object.keys(tools).map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
}));

async function agent(task) {
  const openai = new OpenAI({ apiKey: 'test-key', maxRetries: 0 });
  const messages = [{ role: 'user', content: task }];
  for (let turn = 0; turn < 6; turn++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: definitions,
    });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      let content;
      try {
        content = await tools[call.function.name](JSON.parse(call.function.arguments));
      } catch (error) {
        content = { error: error.message };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error('the agent did not finish');
}

function useWorkspace(binding) {
  for (const name of Object.keys(tools))
    jest
      .spyOn(tools, name)
      .mockImplementation(
        mockTool(binding, { mode: 'async', operation: { packageId: 'repo', operationId: name } }),
      );
}

const model = (...edits) => {
  let s = script().user(TASK).callsTool('read_file', { path: 'src/math.js' });
  for (const e of edits) s = s.callsTool('edit_file', e);
  return s.replies('Fixed.');
};

afterEach(() => jest.restoreAllMocks());

it('the drill passes when the agent fixes the file through the workspace tools', async () => {
  understudy.model.use(model(FIX));
  const result = await runDrills({
    drill: 'fix-add',
    agent: ({ task, binding }) => {
      useWorkspace(binding);
      return agent(task.instruction);
    },
  });
  expect(result).toHavePassedDrill();
  expect(result.runs[0]).toHaveChangedFiles(['src/math.js']);
  expect(result.runs[0]).toHaveCalledToolSequence(['read_file', 'edit_file']);
  expect(result.evidence[1].files[0].diff).toContain(
    '-exports.add = (a, b) => a - b;\n+exports.add = (a, b) => a + b;',
  );
});

it('the test has a folder of its own; the from folder is never written', async () => {
  understudy.model.use(model(FIX));
  const workspace = understudy.world.workspace('repo');
  useWorkspace(understudy.world.bind());
  const run = await understudy.run(() => agent(TASK));
  expect(run).toHaveChangedFiles(['src/math.js']);
  expect(workspace.read('src/math.js')).toContain('a + b');
  expect(workspace.dir.startsWith(__dirname)).toBe(false);
  expect(readFileSync(join(__dirname, 'workspace-repo', 'src', 'math.js'), 'utf8')).toContain('a - b');
  writeFileSync(join(__dirname, 'last-workspace.txt'), workspace.dir);
});

it('the file tools stay in the folder', async () => {
  understudy.model.use(
    script().user(TASK).callsTool('read_file', { path: '../../../../etc/passwd' }).replies('Cannot read it.'),
  );
  useWorkspace(understudy.world.bind());
  const run = await understudy.run(() => agent(TASK));
  expect(run.toolCalls[0].result.error).toContain('OUTSIDE_WORKSPACE');
  expect(run.operations[0].outcome.error.code).toBe('OUTSIDE_WORKSPACE');
});

it('no false green: the agent also bumps package.json', async () => {
  understudy.model.use(model(FIX, BUMP));
  const result = await runDrills({
    drill: 'fix-add',
    agent: ({ task, binding }) => {
      useWorkspace(binding);
      return agent(task.instruction);
    },
  });
  expect(result).toHavePassedDrill();
});

it('no false green: an edit written around the tools counts', async () => {
  understudy.model.use(model(FIX));
  const result = await runDrills({
    drill: 'fix-add',
    agent: ({ task, binding, world }) => {
      useWorkspace(binding);
      writeFileSync(join(world.workspace('repo').dir, 'package.json'), '{}\n');
      return agent(task.instruction);
    },
  });
  expect(result).toHavePassedDrill();
});

it('no false green: toHaveChangedFiles sees every file the run changed', async () => {
  understudy.model.use(model(FIX, BUMP));
  useWorkspace(understudy.world.bind());
  const run = await understudy.run(() => agent(TASK));
  expect(run).toHaveChangedFiles(['src/math.js']);
});
