/**
 * MCP from the installed package, under Jest (CommonJS and ESM) and Vitest: the SDK Client over
 * Streamable HTTP and in-process drive an agent against a world package's MCP server.
 */
import { describe, expect, it } from '@jest/globals';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe('MCP from the installed package', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'serves a world package to the SDK Client over both transports (%s)',
    async (_, runner) => {
      const run = await sharedRun('mcp', runner);
      const [file] = run.files;
      expect(file.tests.map((t) => [t.title, t.status])).toEqual([
        ['an agent over Streamable HTTP retries a BUSY save', 'passed'],
        ['the same agent over the in-process transport', 'passed'],
        [
          'no false green: a call of a tool the server does not have fails the test, though the agent swallows it',
          'failed',
        ],
      ]);
      const message = file.tests[2].failureMessages.join('\n');
      expect(message).toContain('UNKNOWN_OPERATION');
      expect(message).toContain(
        'tools/call "save_nothing": the MCP server of package "notes" has no such tool.',
      );
      expect(message).toContain('Its tools: save_note.');
    },
    90_000,
  );
});
