/**
 * Runs, as a consumer project runs them from the installed package under Jest (CommonJS and ESM)
 * and Vitest: model calls are credited to the right run under the runner's fake timers, an agent
 * that throws fails its test unless the test looks, state set in one test does not reach the
 * next, and work a file leaves running does not reach the next file in the same Jest worker.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  fileOf,
  type InstalledProjectRun,
  messageOf,
  RUNNERS,
  runInstalled,
  statuses,
} from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const NEVER_LOOKED = 'and the test never looked at how the run ended';

describe.each(rowsOf(__filename, EACH_RUNNER))('runs from the installed package (%s)', (_kind, runner) => {
  let run: InstalledProjectRun;
  beforeAll(async () => {
    run = await sharedRun('runs', runner);
  }, 120_000);

  it('credit every streamed call to its run under fake timers', () => {
    const file = fileOf(run, 'runs-fake-timers.case.js');
    expect(statuses(file)).toEqual({
      'attributes a streamed run advanced with runAllTimersAsync': 'passed',
      'attributes a streamed run with latency advanced with advanceTimersByTimeAsync': 'passed',
      'no false green: not.toHaveCalledTool fails when the streamed agent called the tool': 'failed',
      'keeps two concurrent streamed runs apart under fake timers': 'passed',
      'a call made outside the only active run belongs to it': 'passed',
      'a call outside every run while two runs are active fails the test': 'failed',
    });
    const falseGreen = messageOf(
      file,
      'no false green: not.toHaveCalledTool fails when the streamed agent called the tool',
    );
    expect(falseGreen).toContain('not.toHaveCalledTool');
    expect(falseGreen).toContain('delete_everything');
    const ambiguous = messageOf(file, 'a call outside every run while two runs are active fails the test');
    expect(ambiguous).toContain(
      'a openai.chat model call (POST https://api.openai.com/v1/chat/completions) arrived outside the async context of every run while 2 runs were active',
    );
  });

  it('fail a test whose agent threw or timed out unless the test looked at the run', () => {
    const file = fileOf(run, 'runs-errored.case.js');
    expect(statuses(file)).toEqual({
      'fails when the test never looks at a run that threw': 'failed',
      'fails when the test never looks at a run that timed out': 'failed',
      'fails with both the assertion and the agent error': 'failed',
      'passes when the test reads run.terminalState': 'passed',
      'passes when the test reads run.error': 'passed',
      'passes with toHaveTerminalState': 'passed',
      'passes with toMatchObject on the terminal state': 'passed',
      'fails when the test only serialises the run': 'failed',
      'passes with expectError': 'passed',
      'fails when a harness run threw and nobody looked': 'failed',
      'passes with a harness created with expectError': 'passed',
      'passes with expectError on one harness run': 'passed',
      'passes when a run succeeds and nothing is read': 'passed',
      'is looked at by a later test': 'passed',
    });
    const threw = messageOf(file, 'fails when the test never looks at a run that threw');
    expect(threw).toContain(`the agent of understudy.run() threw (terminal state 'errored') ${NEVER_LOOKED}`);
    expect(threw).toContain('Error: the agent crashed on purpose');
    expect(threw).toContain(
      "To accept it: expect(run).toHaveTerminalState('errored'), or understudy.run(fn, { expectError: true }).",
    );
    const timedOut = messageOf(file, 'fails when the test never looks at a run that timed out');
    expect(timedOut).toContain(`timed out (terminal state 'timed_out') ${NEVER_LOOKED}`);
    expect(timedOut).toContain('the agent did not finish within 20 ms');
    expect(timedOut).toContain("expect(run).toHaveTerminalState('timed_out')");
    const both = messageOf(file, 'fails with both the assertion and the agent error');
    expect(both).toContain('toHaveCalledTool');
    expect(both).toContain('Error: the agent crashed on purpose');
    expect(messageOf(file, 'fails when the test only serialises the run')).toContain(NEVER_LOOKED);
    const harness = messageOf(file, 'fails when a harness run threw and nobody looked');
    expect(harness).toContain(`the agent of harness.run() threw (terminal state 'errored') ${NEVER_LOOKED}`);
    expect(harness).toContain('expectError: true');
  });

  it('fail the file for a run made outside the tests that no test looked at', () => {
    const file = fileOf(run, 'runs-errored-file.case.js');
    expect(statuses(file)).toEqual({ 'never looks at the beforeAll run': 'passed' });
    expect(file.message).toContain(
      'A run made outside the tests (in a beforeAll/afterAll hook or at file level)',
    );
    expect(file.message).toContain('crashed in beforeAll');
  });

  it('report a drill agent that threw once, through the drill verdict', () => {
    const file = fileOf(run, 'runs-drill.case.js');
    expect(statuses(file)).toEqual({
      'toHavePassedDrill reports the agent error': 'failed',
      'fails when nobody checks the drill': 'failed',
      'passes when the test reads the verdict': 'passed',
      'a passing drill needs no look': 'passed',
    });
    const checked = messageOf(file, 'toHavePassedDrill reports the agent error');
    expect(checked).toContain('the agent threw Error: the drill agent crashed');
    expect(checked).not.toContain(NEVER_LOOKED);
    const unchecked = messageOf(file, 'fails when nobody checks the drill');
    expect(unchecked).toContain(
      `the agent of a runDrills trial threw (terminal state 'errored') ${NEVER_LOOKED}`,
    );
    expect(unchecked).toContain('expect(result).toHavePassedDrill()');
  });

  it('accept a golden task that declares the crash and fail one that does not, once', () => {
    const file = fileOf(run, 'runs-golden.case.js');
    expect(statuses(file)).toEqual({ 'accepts-the-crash': 'passed', 'ignores-the-crash': 'failed' });
    const message = messageOf(file, 'ignores-the-crash');
    expect(message.split(NEVER_LOOKED)).toHaveLength(2);
    expect(message).toContain('Error: the golden agent crashed');
    expect(message).toContain('give the task `expect: { terminalState: errored }`');
  });

  it('start each test from the file configuration and keep world time across timer switches', () => {
    const file = fileOf(run, 'runs-leak.case.js');
    expect(file.tests.map((t) => [t.fullName, t.status, t.failureMessages.join('\n')])).toEqual(
      file.tests.map((t) => [t.fullName, 'passed', '']),
    );
    expect(file.tests).toHaveLength(9);
  });
});

// Jest only: Vitest runs each test file in a worker of its own (the plugin refuses `isolate:
// false`), so no file of a Vitest run has a next file in its worker to reach.
describe('a file that leaves a stream running', () => {
  it.each(
    rowsOf(
      __filename,
      EACH_RUNNER.filter(([, runner]) => runner !== 'vitest'),
    ),
  )(
    'does not reach the next file in the same worker; its late fetch gets a rejected promise (%s)',
    async (_kind, runner) => {
      // Runs the two files in name order in one worker.
      const sequencer = `const Sequencer = require('@jest/test-sequencer').default;
module.exports = class extends Sequencer {
  sort(tests) { return [...tests].sort((a, b) => a.path.localeCompare(b.path)); }
};\n`;
      const run = await runInstalled({
        cases: ['runs-leftover-a.case.js', 'runs-leftover-b.case.js'],
        files: { 'sequencer.js': sequencer },
        config: { testSequencer: '<rootDir>/sequencer.js' },
        args: ['--runInBand'],
        ...RUNNERS[runner],
      });
      expect(run.files.map((f) => f.name.split('/').pop())).toEqual([
        'runs-leftover-a.case.js',
        'runs-leftover-b.case.js',
      ]);
      const b = fileOf(run, 'runs-leftover-b.case.js');
      expect(b.message).toBe('');
      expect(b.tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual([
        ['is not reached by what the previous file left running', 'passed', ''],
      ]);
      expect(statuses(fileOf(run, 'runs-leftover-a.case.js'))).toEqual({
        'leaves a stream running': 'passed',
      });
    },
    60_000,
  );
});
