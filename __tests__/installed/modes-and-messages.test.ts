/**
 * From the installed package, under Jest (CommonJS and ESM) and Vitest: the `contains` / `within`
 * mode names, each with a case that must fail; `modelCallIndex` the same whether a test runs
 * alone (`-t`) or with its file; the messages for a tool name typo and a tool error whose message
 * is its code; and, under Jest, jest-understudy's environment missing (with and without the
 * preset; Vitest's counterparts are in vitest.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { fileOf, messageOf, RUNNERS, runInstalled, statuses } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const JEST_ONLY = rowsOf(
  __filename,
  EACH_RUNNER.filter(([, runner]) => runner !== 'vitest'),
);

describe('mode names, modelCallIndex and messages from the installed package', () => {
  it.each(rowsOf(__filename, EACH_RUNNER))(
    'contains and within pass and fail as they say; the messages point the right way (%s)',
    async (_kind, runner) => {
      const modes = fileOf(await sharedRun('modes', runner), 'modes.case.js');
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
    },
    120_000,
  );

  it.each(rowsOf(__filename, EACH_RUNNER))(
    'modelCallIndex is the same for a test run alone (-t) and with its whole file (%s)',
    async (_kind, runner) => {
      const [whole, alone] = await Promise.all([
        sharedRun('model-call-index', runner),
        runInstalled({
          cases: ['model-call-index.case.js'],
          args: ['-t', 'points each tool call'],
          ...RUNNERS[runner],
        }),
      ]);
      expect(statuses(fileOf(whole, 'model-call-index.case.js'))).toEqual({
        'warms the model up': 'passed',
        'points each tool call at the model call that requested it': 'passed',
      });
      // A test `-t` leaves out: Jest's JSON says "pending", Vitest's "skipped".
      expect(statuses(fileOf(alone, 'model-call-index.case.js'))).toEqual({
        'warms the model up': runner === 'vitest' ? 'skipped' : 'pending',
        'points each tool call at the model call that requested it': 'passed',
      });
      const seen = (run: { project: string }) =>
        JSON.parse(readFileSync(join(run.project, 'calls.jsonl'), 'utf8').trim());
      const [w, a] = [seen(whole), seen(alone)];
      expect(w.map((c: { modelCallIndex: number }) => c.modelCallIndex)).toEqual([0, 1]);
      expect(a.map((c: { modelCallIndex: number }) => c.modelCallIndex)).toEqual([0, 1]);
      // The file-wide numbers are what -t changes: the warm-up test's model call is counted or not.
      expect(w.map((c: { fileModelCallIndex: number }) => c.fileModelCallIndex)).toEqual([3, 4]);
      expect(a.map((c: { fileModelCallIndex: number }) => c.fileModelCallIndex)).toEqual([2, 3]);
    },
    120_000,
  );

  // Jest's preset, environment options and docblock: Vitest has none of them (a Vitest file run
  // without the plugin, and its message, are in vitest.test.ts).
  it.each(JEST_ONLY)(
    'without the preset, or under another environment, the message says what works, and what it says works (%s)',
    async (_kind, runner) => {
      const [bare, pair, docblock] = await Promise.all([
        sharedRun('env-missing', runner),
        sharedRun('env-pair', runner),
        sharedRun('env-docblock', runner),
      ]);
      const message = messageOf(
        fileOf(bare, 'env-missing.case.js'),
        'uses understudy without the environment',
      );
      expect(message).toContain("Set `preset: 'jest-understudy'` in your Jest config");
      expect(message).toContain(
        "set both `testEnvironment: 'jest-understudy/environment'` and `setupFilesAfterEnv: ['jest-understudy/setup']`",
      );
      expect(message).not.toContain('docblock');
      // The pair the message names, without the preset, runs a test that uses a matcher.
      expect(statuses(fileOf(pair, 'smoke.case.js'))).toEqual({ 'replays a reply': 'passed' });

      const other = messageOf(
        fileOf(docblock, 'env-docblock.case.js'),
        'uses understudy under another environment',
      );
      expect(other).toContain(
        "UnderstudyError [ENVIRONMENT_MISSING]: jest-understudy's environment is not running this test file",
      );
      expect(other).toContain("the file's docblock `@jest-environment node` replaces the environment");
      expect(other).not.toContain('Set `preset');
    },
    120_000,
  );
});
