/**
 * The error model from the installed package, under Jest (CommonJS and ESM) and Vitest: codes on
 * what a test catches, on the first line of every printed error, and on the failures the
 * environment adds for what an agent swallowed.
 */
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('error codes, from the installed package', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'are on caught errors, matcher misuse and the failures the environment adds (%s)',
    async (_, runner) => {
      const run = await sharedRun('errors', runner);
      const tests = run.files[0].tests;
      expect(tests.map((t) => [t.title, t.status])).toEqual([
        ['a caught error names its code, in isUnderstudyError and on the first line of its stack', 'passed'],
        ['a matcher used wrongly throws an error coded BAD_ARGUMENT', 'passed'],
        ['an unmatched model request the agent swallows fails the test with MODEL_UNMATCHED', 'failed'],
      ]);
      expect(tests[2].failureMessages.join('\n')).toContain(
        'UnderstudyError [MODEL_UNMATCHED]: No fixture matched this openai.chat request',
      );
      // As the runner prints it: the first line under the test's name names the code. Jest prints
      // the error's stack under `● <title>`; Vitest its name and message under `<file>:<line>[:<column>] > <title>`
      // (the plugin turns on `includeTaskLocation`, for the annotations' lines).
      const printed = stripVTControlCharacters(run.process.stdout + run.process.stderr);
      const title = literally(tests[2].title);
      expect(printed).toMatch(
        new RegExp(
          runner === 'vitest'
            ? `errors\\.case\\.js(:\\d+)+ > ${title}\\nUnderstudyError \\[MODEL_UNMATCHED\\]: No fixture matched`
            : `● ${title}\\n\\n +UnderstudyError \\[MODEL_UNMATCHED\\]: No fixture matched`,
        ),
      );
    },
    60_000,
  );
});
