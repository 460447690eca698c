/**
 * The reporter's summary and flake history from the installed package, under Jest (CommonJS and
 * ESM) and Vitest: one world
 * operation inside understudy.run counts once, and a test is flaky only when it failed and passed
 * on the same code (its test file and the fixtures it loaded), not when it was edited in between.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileOf, type InstalledRun, RUNNERS, runInstalled } from '../support/installed';
import { runnersOf } from '../support/runner-tier';

describe.each(runnersOf(__filename))(
  'the summary and the flake history from the installed package (%s)',
  (runner) => {
    const runs: InstalledRun[] = [];
    const cases = [
      'truthful-count.case.js',
      'truthful-flake-edit.case.js',
      'truthful-flake-fixture.case.js',
      'truthful-flake-same.case.js',
    ];
    // The edits a developer makes between run 1 and run 2: the test itself, and another test's fixture.
    const edited = {
      'truthful-flake-edit.case.js':
        "// Edited: the test passes now.\nconst { expect, it } = require('./runner-globals.cjs');\n\nit('is written test-first', () => {\n  expect(process.env.TRUTHFUL_FAIL).toBeUndefined();\n});\n",
      'truthful-flake.fixture.json':
        '{ "fixtures": [{ "match": { "userMessage": "hello" }, "response": { "content": "hello again" } }] }\n',
    };
    const stderr = (run: InstalledRun) => stripVTControlCharacters(run.stderr);
    beforeAll(async () => {
      const fail = { TRUTHFUL_FAIL: '1', CI: undefined };
      const runnerOptions = RUNNERS[runner];
      runs.push(await runInstalled({ cases, env: fail, ...runnerOptions }));
      const project = runs[0].project;
      runs.push(
        await runInstalled({ cases, project, files: edited, env: { CI: undefined }, ...runnerOptions }),
      );
      runs.push(await runInstalled({ cases, project, files: edited, env: fail, ...runnerOptions }));
    }, 240_000);

    it('counts one world operation inside understudy.run once', () => {
      expect(fileOf(runs[0], 'truthful-count.case.js').tests.map((t) => t.status)).toEqual(['passed']);
      expect(stderr(runs[0])).toMatch(/\n {2}1 tool operation\n/);
    });

    it('calls a test flaky when it failed and passed on the same code, not when it was edited in between', () => {
      expect(runs.map((r) => r.code)).toEqual([1, 0, 1]);
      const second = stderr(runs[1]);
      expect(second).toContain('1 flaky test in recent runs');
      expect(second).toContain(
        'depends on the weather (truthful-flake-same.case.js): failed 1 of 2 runs (50%)',
      );
      expect(second).not.toContain('is written test-first (truthful-flake-edit.case.js)');
      expect(second).not.toContain('answers from its fixture (truthful-flake-fixture.case.js)');
      const third = stderr(runs[2]);
      expect(third).toContain('3 flaky tests in recent runs');
      expect(third).toContain(
        'is written test-first (truthful-flake-edit.case.js): failed 1 of 2 runs (50%)',
      );
      expect(third).toContain(
        'answers from its fixture (truthful-flake-fixture.case.js): failed 1 of 2 runs (50%)',
      );
      expect(third).toContain(
        'depends on the weather (truthful-flake-same.case.js): failed 2 of 3 runs (67%)',
      );
    });
  },
);
