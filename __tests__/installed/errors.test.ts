/**
 * The error model from the installed package: codes on what a test catches, on the first line
 * of every printed error, and on the failures the environment adds for what an agent swallowed.
 */
import { describe, expect, it } from '@jest/globals';
import { sharedRun } from '../support/shared-runs';

describe('error codes, from the installed package', () => {
  it('are on caught errors, matcher misuse and the failures the environment adds (CommonJS, no flag)', async () => {
    const run = await sharedRun('errors', 'jest-cjs');
    const tests = run.files[0].tests;
    expect(tests.map((t) => [t.title, t.status])).toEqual([
      ['a caught error names its code, in isUnderstudyError and on the first line of its stack', 'passed'],
      ['a matcher used wrongly throws an error coded BAD_ARGUMENT', 'passed'],
      ['an unmatched model request the agent swallows fails the test with MODEL_UNMATCHED', 'failed'],
    ]);
    expect(tests[2].failureMessages.join('\n')).toContain(
      'UnderstudyError [MODEL_UNMATCHED]: No fixture matched this openai.chat request',
    );
  }, 60_000);
});
