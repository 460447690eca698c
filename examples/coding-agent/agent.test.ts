/**
 * The coding agent against a fixture workspace: the repository in ./repo is copied into a
 * fresh temporary folder for each test and drill trial. Its file tools are replaced with
 * the world's workspace operations (mockTool), so every read and edit goes through the
 * world engine and every change is in the evidence as a diff; the drill judges the files
 * the agent left, however it wrote them.
 *
 * @understudy-world ./coding.world.yaml
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  type Binding,
  type DrillAgentContext,
  mockTool,
  runDrills,
  script,
  understudy,
} from 'jest-understudy';
import { runCodingAgent } from './agent';
import { fileTools } from './tools';

const TASK = 'add(2, 3) returns -1. Fix it.';
const FIX = { path: 'src/math.ts', old_string: 'return a - b;', new_string: 'return a + b;' };

// The model's side, replayed: find add(), read the file, fix the line, answer.
const fixAdd = script()
  .user(TASK)
  .callsTool('grep', { pattern: 'function add' })
  .callsTool('read_file', { path: 'src/math.ts' })
  .callsTool('edit_file', FIX)
  .replies('Fixed: add() now returns a + b.');

/** The agent's file tools become the workspace's operations, called as the drill's actor. */
function useWorkspaceTools(binding: Binding) {
  for (const name of ['list_dir', 'grep', 'read_file', 'edit_file'] as const)
    jest
      .spyOn(fileTools, name)
      .mockImplementation(
        mockTool(binding, { mode: 'async', operation: { packageId: 'repo', operationId: name } }),
      );
}

/** The drill's agent: the coding agent, with its file tools served by the trial's workspace. */
const workspaceAgent = ({ task, binding }: DrillAgentContext) => {
  useWorkspaceTools(binding);
  return runCodingAgent(task.instruction);
};

afterEach(() => {
  jest.restoreAllMocks();
  fileTools.root = process.cwd();
});

describe('the fix-add drill', () => {
  it('passes: the agent finds add(), reads it, fixes the one line', async () => {
    understudy.model.use(fixAdd);

    const result = await runDrills({
      drill: 'fix-add',
      agent: workspaceAgent,
    });

    expect(result).toHavePassedDrill();
    const [run] = result.runs;
    expect(run).toHaveCalledToolSequence(['grep', 'read_file', 'edit_file']);
    expect(run).toHaveChangedFiles(['src/math.ts']);
    expect(run).toHaveFinalMessage('a + b');
    // The edit, as the evidence (and the trace and the timeline) shows it.
    const edit = result.evidence.find((op) => op.operationId === 'edit_file');
    expect(edit?.files?.[0].diff).toBe(
      [
        '--- a/src/math.ts',
        '+++ b/src/math.ts',
        '@@ -1,7 +1,7 @@',
        ' /** Adds two numbers. */',
        ' export function add(a: number, b: number): number {',
        '-  return a - b;',
        '+  return a + b;',
        ' }',
        ' ',
        ' /** Multiplies two numbers. */',
        ' export function multiply(a: number, b: number): number {',
        '',
      ].join('\n'),
    );
    // The repository the workspace was copied from is never written.
    expect(readFileSync(join(__dirname, 'repo', 'src', 'math.ts'), 'utf8')).toContain('return a - b;');
  });

  it('fails when the agent also edits package.json, and says what changed', async () => {
    understudy.model.use(
      script()
        .user(TASK)
        .callsTool('read_file', { path: 'src/math.ts' })
        .callsTool('edit_file', FIX)
        .callsTool('edit_file', {
          path: 'package.json',
          old_string: '"version": "1.0.0"',
          new_string: '"version": "1.0.1"',
        })
        .replies('Fixed add() and bumped the version.'),
    );

    const result = await runDrills({
      drill: 'fix-add',
      agent: workspaceAgent,
    });

    expect(result.verdict).toBe('failed');
    expect(result.reasons).toEqual([
      'package.json unchanged: it was modified:\n' +
        '--- a/package.json\n+++ b/package.json\n@@ -1,5 +1,5 @@\n {\n   "name": "calculator",\n' +
        '-  "version": "1.0.0",\n+  "version": "1.0.1",\n   "private": true\n }\n',
      'no file changed outside src/**: changed outside: package.json (modified)',
    ]);
    expect(result.runs[0]).toHaveChangedFiles(['src/math.ts', 'package.json']);
    expect(() => expect(result).toHavePassedDrill()).toThrow(/✗ package\.json unchanged/);
  });

  it('no false green: an edit made around the tools (the agent writing files itself) still counts', async () => {
    understudy.model.use(
      script()
        .user(TASK)
        .callsTool('edit_file', FIX)
        .callsTool('edit_file', { path: 'README.md', old_string: '# calculator', new_string: '# calc' })
        .replies('Done.'),
    );

    const result = await runDrills({
      drill: 'fix-add',
      // No mocks: the agent's own fs tools, run in the trial's workspace folder.
      agent: ({ task, world }) => {
        fileTools.root = world.workspace('repo').dir;
        return runCodingAgent(task.instruction);
      },
    });

    expect(result.evidence).toEqual([]);
    expect(result.reasons).toEqual(['no file changed outside src/**: changed outside: README.md (modified)']);
  });

  it('takes per-test rules: the file changed under the agent once, and it reads again before editing', async () => {
    understudy.model.use(
      script()
        .user(TASK)
        .callsTool('read_file', { path: 'src/math.ts' })
        .callsTool('edit_file', FIX)
        .callsTool('read_file', { path: 'src/math.ts' })
        .callsTool('edit_file', FIX)
        .replies('Fixed on the second try.'),
    );

    const result = await runDrills({
      drill: 'fix-add',
      agent: workspaceAgent,
      setup: {
        toolOverrides: [
          {
            id: 'stale-edit',
            operation: { packageId: 'repo', operationId: 'edit_file' },
            times: 1,
            outcome: {
              kind: 'error',
              code: 'EDIT_NO_MATCH',
              message: 'src/math.ts changed since you read it',
            },
          },
        ],
      },
    });

    // The first edit failed (the rule), so the drill's noErrors criterion names it.
    expect(result.reasons).toEqual([
      'no operation failed: 1 failed: #2 edit_file {"path":"src/math.ts","old_string":"return a - b;","new_string":"return a + b;"} → EDIT_NO_MATCH',
    ]);
    expect(result.runs[0].toolCalls[1].result).toEqual({
      error: 'repo/edit_file failed with EDIT_NO_MATCH: src/math.ts changed since you read it',
    });
    expect(result.state).toEqual({ repo: {} });
    expect(result.runs[0]).toHaveChangedFiles(['src/math.ts']);
  });
});

describe('outside drills', () => {
  it("the agent's own tools can run directly in the test's workspace folder", async () => {
    understudy.model.use(fixAdd);
    const workspace = understudy.world.workspace('repo');
    fileTools.root = workspace.dir;

    const run = await understudy.run(() => runCodingAgent(TASK));

    expect(run).toHaveCalledToolSequence(['grep', 'read_file', 'edit_file']);
    expect(run).toHaveChangedFiles(['src/math.ts']);
    expect(workspace.read('src/math.ts')).toContain('return a + b;');
    expect(workspace.diff()).toContain('-  return a - b;\n+  return a + b;');
    // Nothing went through the world engine.
    expect(run.operations).toEqual([]);
  });
});
