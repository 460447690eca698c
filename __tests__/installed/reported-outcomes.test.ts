/**
 * A tool failure reaches the assertions as a failure, from the installed package under each
 * runner: an agent's own tool that answered with an error object ends in `error`, and a mockTool
 * whose error builder builds nothing fails the test even though the agent caught what it threw.
 */
import { describe, expect, it } from '@jest/globals';
import { fileOf, messageOf, statuses } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

describe.each(runnersOf(__filename))('a reported tool failure (%s)', (runner) => {
  it('is an error outcome, and a mockTool error builder that builds nothing fails the test', async () => {
    const file = fileOf(await sharedRun('reported-outcomes', runner), 'reported-outcomes.case.js');
    expect(statuses(file)).toEqual({
      'an own tool that answered with an error object ended in error': 'passed',
      'must fail: an own tool that answered with an error object asserted ok': 'failed',
      'must fail: a mockTool error builder that builds nothing, the agent catching what it throws': 'failed',
    });
    expect(
      messageOf(file, 'must fail: an own tool that answered with an error object asserted ok'),
    ).toContain('ending ok');
    expect(
      messageOf(
        file,
        'must fail: a mockTool error builder that builds nothing, the agent catching what it throws',
      ),
    ).toContain('MOCKTOOL_ERROR');
  }, 120_000);
});
