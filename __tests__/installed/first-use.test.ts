/**
 * What a test file loads only when it first needs it (pricing, the fixture schema's wording, the
 * OTLP writer behind run.trace) still works when it is the first thing the file uses: each case is
 * a file of its own, so nothing loaded it before. Under Jest (CommonJS and ESM) and Vitest.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, RUNNERS, runInstalled } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { EACH_RUNNER } from './shared';

const CASES = ['first-use-pricing.case.js', 'first-use-fixture-error.case.js', 'first-use-run-trace.case.js'];

/** Each test's title, status and failure message (empty when it passed). */
const outcomes = (file: ChildFile) =>
  Object.fromEntries(
    file.tests.map((t) => [t.title, [t.status, stripVTControlCharacters(t.failureMessages.join('\n'))]]),
  );
const passed = ['passed', ''];

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'a lazily loaded part as the first use of a file (%s)',
  (_, runner) => {
    const files = new Map<string, ChildFile>();

    beforeAll(async () => {
      const run = await runInstalled({ cases: CASES, ...RUNNERS[runner] });
      for (const name of CASES) files.set(name, fileOf(run, name));
    }, 240_000);

    it('pricing: costOf and priceOf answer', () => {
      expect(outcomes(files.get('first-use-pricing.case.js')!)).toEqual({
        'prices a model and a call as the first thing the file does': passed,
      });
    });

    it('a broken fixture: use() and validateFixtureFile name the field, its path and the fix', () => {
      expect(outcomes(files.get('first-use-fixture-error.case.js')!)).toEqual({
        'refuses a misspelt response field, naming it and the right one': passed,
        'validateFixtureFile reports the same problem as a value': passed,
        'validateFixtureFile accepts a good file': passed,
      });
    });

    it("run.trace: the run's spans, model calls and tool call", () => {
      expect(outcomes(files.get('first-use-run-trace.case.js')!)).toEqual({
        "builds a run's spans the first time run.trace is read": passed,
      });
    });
  },
);
