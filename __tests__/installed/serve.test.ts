/**
 * Serve mode from the installed package, under Jest (CommonJS and ESM) and Vitest: agents in
 * other processes (Python, a shell script using `understudy tool call`, an agent spawning
 * `understudy mcp stdio`) against the file's model and world, and the port's faults on the wire.
 * The cases run in the shared child runs (./shared.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

describe('serve mode from the installed package', () => {
  it.each(runnersOf(__filename))(
    'agents in other processes on the served port (%s)',
    async (runner) => {
      const run = await sharedRun('serve', runner);
      const testsOf = (suffix: string) => {
        const file = run.files.find((f) => f.name.endsWith(suffix));
        if (!file) throw new Error(`no ${suffix} in the run:\n${run.process.stdout}\n${run.process.stderr}`);
        return file.tests;
      };

      const pythonCase = testsOf('serve-python.case.js');
      expect(pythonCase.map((t) => [t.title, t.status])).toEqual([
        ['a Python agent replays a 3-step tool loop', 'passed'],
        [
          'no false green: a Python agent the model cannot answer, whose exit code the test ignores',
          'failed',
        ],
      ]);
      const unmatched = pythonCase[1].failureMessages.join('\n');
      expect(unmatched).toContain('MODEL_UNMATCHED');
      expect(unmatched).toContain('userMessage: "Cancel my subscription"');

      const shellCase = testsOf('serve-shell.case.js');
      expect(shellCase.map((t) => [t.title, t.status])).toEqual([
        ['a shell agent calls its tools with understudy tool call', 'passed'],
        ['no false green: a shell that swallows a call of an operation the world does not have', 'failed'],
      ]);
      const unknown = shellCase[1].failureMessages.join('\n');
      expect(unknown).toContain('UNKNOWN_OPERATION');
      expect(unknown).toContain('package "orders" has no operation "orders.cancel"');

      const mcpCase = testsOf('serve-mcp.case.js');
      expect(mcpCase.map((t) => [t.title, t.status])).toEqual([
        ['an agent spawns understudy mcp stdio and refunds through the world', 'passed'],
        [
          'no false green: an agent that swallows the error of a tool the stdio server does not have',
          'failed',
        ],
      ]);
      expect(testsOf('serve-wire.case.js').map((t) => [t.title, t.status])).toEqual([
        ["a stream that fails mid-way ends with the provider's error event", 'passed'],
        ['a disconnect fault drops the connection after part of the stream', 'passed'],
      ]);

      const unknownTool = mcpCase[1].failureMessages.join('\n');
      expect(unknownTool).toContain('UNKNOWN_OPERATION');
      expect(unknownTool).toContain('tools/call "cancel_order"');
    },
    120_000,
  );
});
