/**
 * From the installed package (CommonJS, no flag): the `contains` / `within` mode names, each with a
 * case that must fail; `modelCallIndex` the same whether a test runs alone (`-t`) or with its
 * file; and the messages that used to point the wrong way: a tool name typo, a tool error whose
 * message is its code, and jest-understudy's environment missing (with and without the preset).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { fileOf, messageOf, runInstalled, statuses } from '../support/installed';
import { sharedRun } from '../support/shared-runs';

describe('mode names, modelCallIndex and messages from the installed package', () => {
  it('contains and within pass and fail as they say; the messages point the right way (preset)', async () => {
    const run = await runInstalled({
      cases: ['modes.case.js', 'model-call-index.case.js', 'env-docblock.case.js'],
      env: { INDEX_OUT: '/dev/null' },
    });
    const modes = fileOf(run, 'modes.case.js');
    expect(messageOf(modes, 'contains and within pass where the run holds')).toBe('');
    expect(statuses(modes)).toEqual({
      'contains and within pass where the run holds': 'passed',
      'no false green: within fails on a call outside the expected steps': 'failed',
      'no false green: contains fails on a missing step': 'failed',
      'a typo in a tool name fails with did you mean': 'failed',
      'a tool error declared without a message says its code once': 'failed',
    });
    const within = messageOf(modes, 'no false green: within fails on a call outside the expected steps');
    expect(within).toContain('(mode: within, args: subset)');
    expect(within).toMatch(
      /calls matching no expected step \(2\):\n {2}1 page_oncall .*\n {2}2 page_oncall /,
    );
    const contains = messageOf(modes, 'no false green: contains fails on a missing step');
    expect(contains).toContain('(mode: contains, args: subset)');
    expect(contains).toContain('expected steps with no matching call (1):\n  1 issue_refund');
    expect(messageOf(modes, 'a typo in a tool name fails with did you mean')).toContain(
      'No call is named "lookup_ordr": did you mean "lookup_order" (called)?',
    );
    const busy = messageOf(modes, 'a tool error declared without a message says its code once');
    expect(busy).toContain('ToolMockError: pager/pages.create failed with BUSY\n');
    expect(busy).not.toContain('BUSY: BUSY');

    const docblock = messageOf(
      fileOf(run, 'env-docblock.case.js'),
      'uses understudy under another environment',
    );
    expect(docblock).toContain(
      "UnderstudyError [ENVIRONMENT_MISSING]: jest-understudy's environment is not running this test file",
    );
    expect(docblock).toContain("the file's docblock `@jest-environment node` replaces the environment");
    expect(docblock).not.toContain('Set `preset');
  }, 120_000);

  it('modelCallIndex is the same for a test run alone (-t) and with its whole file', async () => {
    const whole = await runInstalled({
      cases: ['model-call-index.case.js'],
      env: { INDEX_OUT: 'whole.jsonl' },
    });
    const alone = await runInstalled({
      cases: ['model-call-index.case.js'],
      args: ['-t', 'points each tool call'],
      env: { INDEX_OUT: 'alone.jsonl' },
    });
    expect(statuses(fileOf(whole, 'model-call-index.case.js'))).toEqual({
      'warms the model up': 'passed',
      'points each tool call at the model call that requested it': 'passed',
    });
    expect(statuses(fileOf(alone, 'model-call-index.case.js'))).toEqual({
      'warms the model up': 'pending',
      'points each tool call at the model call that requested it': 'passed',
    });
    const seen = (run: { project: string }, name: string) =>
      JSON.parse(readFileSync(join(run.project, name), 'utf8').trim());
    const [w, a] = [seen(whole, 'whole.jsonl'), seen(alone, 'alone.jsonl')];
    expect(w.map((c: { modelCallIndex: number }) => c.modelCallIndex)).toEqual([0, 1]);
    expect(a.map((c: { modelCallIndex: number }) => c.modelCallIndex)).toEqual([0, 1]);
    // The file-wide numbers are what -t changes: the warm-up test's model call is counted or not.
    expect(w.map((c: { fileModelCallIndex: number }) => c.fileModelCallIndex)).toEqual([3, 4]);
    expect(a.map((c: { fileModelCallIndex: number }) => c.fileModelCallIndex)).toEqual([2, 3]);
  }, 120_000);

  it('without the preset, the message says what works, and what it says works', async () => {
    // Two projects: the bare one, and one with the pair the message names.
    const bare = await sharedRun('env-missing', 'jest-cjs');
    const pair = await sharedRun('env-pair', 'jest-cjs');
    const message = messageOf(fileOf(bare, 'env-missing.case.js'), 'uses understudy without the environment');
    expect(message).toContain("Set `preset: 'jest-understudy'` in your Jest config");
    expect(message).toContain(
      "set both `testEnvironment: 'jest-understudy/environment'` and `setupFilesAfterEnv: ['jest-understudy/setup']`",
    );
    expect(message).not.toContain('docblock');
    // The pair the message names, without the preset, runs a test that uses a matcher.
    expect(statuses(fileOf(pair, 'smoke.case.js'))).toEqual({ 'replays a reply': 'passed' });
  }, 120_000);
});
