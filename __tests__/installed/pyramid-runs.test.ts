/**
 * The scenario builder, fault sweeps, crash and resume and the provider matrix, as a consumer
 * project runs them from the installed package, under Jest (CommonJS and ESM) and Vitest.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileOf, type InstalledProjectRun, messageOf, statuses } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'the agent test pyramid from the installed package (%s)',
  (_kind, runner) => {
    let run: InstalledProjectRun;
    beforeAll(async () => {
      run = await sharedRun('pyramid-runs', runner);
    }, 120_000);

    it('builds scenarios: tool fakes recorded, a world of their own, immutable, nothing left behind', () => {
      const file = fileOf(run, 'pyramid-scenario.case.js');
      expect(statuses(file)).toEqual({
        'runs the agent with a tool fake and records its calls': 'passed',
        'is immutable: a with… call returns a new scenario and leaves the base alone': 'passed',
        'no false green: the fixtures of a scenario run do not answer a later run': 'failed',
        'acts in its own world file from the state it is given': 'passed',
        'refuses a fake that is not an object, naming the argument': 'passed',
      });
      expect(
        messageOf(file, 'no false green: the fixtures of a scenario run do not answer a later run'),
      ).toContain('MODEL_UNMATCHED');
    });

    it('sweeps faults: a handled branch passes toHandleAllFaults, an unhandled one fails it by name', () => {
      const file = fileOf(run, 'pyramid-sweep.case.js');
      expect(statuses(file)).toEqual({
        'an agent that reports tool errors to the model handles every fault': 'passed',
        'no false green: an agent that throws on a tool error fails toHandleAllFaults': 'failed',
        'the unhandled variants of a sweep do not fail the test by themselves': 'passed',
        'sweeps a drill: the variants that break a criterion name it': 'passed',
        'refuses an exception that names no fault of the sweep': 'passed',
        'refuses to judge faults against a baseline that fails': 'passed',
        'no false green: a sweep that tried no fault fails toHandleAllFaults': 'failed',
      });
      const unhandled = messageOf(
        file,
        'no false green: an agent that throws on a tool error fails toHandleAllFaults',
      );
      expect(unhandled).toContain('The agent does not handle 4 of 4 faults');
      expect(unhandled).toContain('refund#1 CARD_DECLINED');
      expect(unhandled).toContain('desk/refunds.create failed with CARD_DECLINED');
      expect(
        messageOf(file, 'no false green: a sweep that tried no fault fails toHandleAllFaults'),
      ).toContain('The sweep tried no faults');
    });

    it('crashes and resumes: the world keeps the effect, noDuplicateEffects tells a resume from a repeat', () => {
      const file = fileOf(run, 'pyramid-crash.case.js');
      expect(statuses(file)).toEqual({
        'cuts the run off after the operation: the agent never sees the answer': 'passed',
        'crashes at a model request, which is never answered': 'passed',
        'a drill with a checkpoint and a stable key passes noDuplicateEffects across the crash': 'passed',
        'no false green: a fresh key per attempt is still the same request done twice': 'failed',
        'no false green: a crash that never comes fails the test': 'failed',
        'refuses to resume a run that did not crash, and a crash plan that is not one': 'passed',
      });
      expect(
        messageOf(file, 'no false green: a fresh key per attempt is still the same request done twice'),
      ).toContain(
        '#1 and #2 with the same input {"orderId":"A-1","amount":500} (keys "refund-1" and "refund-2")',
      );
      expect(messageOf(file, 'no false green: a crash that never comes fails the test')).toContain(
        'CRASH_NOT_REACHED',
      );
    });

    it('runs a body across providers: the same trajectory passes, a failure on one protocol fails the test', () => {
      const file = fileOf(run, 'pyramid-providers.case.js');
      expect(statuses(file)).toEqual({
        'runs the body once per protocol and finds the same trajectory': 'passed',
        'no false green: a body that fails on one protocol fails the test': 'failed',
        'refuses an unknown protocol, naming it': 'passed',
      });
      const failed = messageOf(file, 'no false green: a body that fails on one protocol fails the test');
      expect(failed).toContain('PORTABILITY_FAILED');
      expect(failed).toMatch(/openai\.chat +get_deploy, rollback +succeeded +✓ reference/);
      expect(failed).toMatch(
        /openai\.responses +get_deploy, rollback +succeeded +✗ failed: the test body failed/,
      );
    });
  },
);
