/** The JUnit renderer's document; its validity against junit-10.xsd is checked in __tests__/e2e/reporter (xmllint). */
import { describe, expect, it } from '@jest/globals';
import type { CaseResult } from '../../../../src/reporter/cases';
import { junitXml } from '../../../../src/reporter/junit';

const ROOT = '/work/repo';

const cases: CaseResult[] = [
  { file: '/work/repo/test/a.test.ts', name: 'a › passes', status: 'passed', durationMs: 1234 },
  {
    file: '/work/repo/test/a.test.ts',
    name: 'a › fails "quoted" & <tagged>',
    status: 'failed',
    durationMs: 20,
    failure: { message: 'expected <x> & "y"\nsecond line \u0007 bell', type: 'JestAssertionError', line: 9 },
    note: {
      trace: '/work/repo/.understudy/traces/test/a.test.ts/a › fails.trace.json',
      timeline: '/work/repo/.understudy/traces/test/a.test.ts/a › fails.trace.html',
      expectation: {
        matcher: 'toHaveCalledToolSequence',
        negated: false,
        expected: ['lookup'],
        received: ['cancel'],
        rows: [{ expected: 0, received: 0, ok: false }],
      },
    },
  },
  { file: '/work/repo/test/a.test.ts', name: 'a › later', status: 'skipped' },
  {
    file: '/work/repo/test/b.test.ts',
    name: '',
    status: 'failed',
    failure: { message: 'Cannot find module', type: 'Error' },
  },
];

describe('JUnit XML', () => {
  const xml = junitXml(cases, { root: ROOT, startedAt: new Date('2026-01-02T03:04:05.678Z') });

  it('has a suite per file and a case per test, with times in seconds and counts', () => {
    expect(xml).toContain(
      '<testsuites name="jest-understudy" tests="4" failures="1" errors="1" time="1.254">',
    );
    expect(xml).toContain(
      '<testsuite name="test/a.test.ts" tests="3" failures="1" errors="0" skipped="1" time="1.254" timestamp="2026-01-02T03:04:05" file="test/a.test.ts">',
    );
    expect(xml).toContain('<testcase name="a › passes" classname="test/a.test.ts" time="1.234"/>');
    expect(xml).toContain(
      '<testcase name="a › later" classname="test/a.test.ts" time="0.000">\n      <skipped/>',
    );
  });

  it('gives a failure its message, type and body (line, trajectory, trace), escaped', () => {
    expect(xml).toContain(
      '<testcase name="a › fails &quot;quoted&quot; &amp; &lt;tagged&gt;" classname="test/a.test.ts" time="0.020">',
    );
    expect(xml).toContain(
      '<failure message="expected &lt;x&gt; &amp; &quot;y&quot;" type="JestAssertionError">expected &lt;x&gt; &amp; "y"\nsecond line \ufffd bell\n\nat test/a.test.ts:9\n\nTrajectory (toHaveCalledToolSequence):\n- lookup\n+ cancel\n\nUnderstudy trace:    .understudy/traces/test/a.test.ts/a › fails.trace.json',
    );
  });

  it('carries the trace and timeline as properties of the suite and attachments of the test', () => {
    expect(xml).toContain(
      '<property name="understudy.trace: a › fails &quot;quoted&quot; &amp; &lt;tagged&gt;" value=".understudy/traces/test/a.test.ts/a › fails.trace.json"/>',
    );
    expect(xml).toContain(
      '<system-out>[[ATTACHMENT|/work/repo/.understudy/traces/test/a.test.ts/a › fails.trace.json]]\n[[ATTACHMENT|/work/repo/.understudy/traces/test/a.test.ts/a › fails.trace.html]]</system-out>',
    );
  });

  it('reports a file that failed outside its tests as an error', () => {
    expect(xml).toContain('<testsuite name="test/b.test.ts" tests="1" failures="0" errors="1"');
    expect(xml).toContain(
      '<testcase name="(outside its tests)" classname="test/b.test.ts" time="0.000">\n      <error message="Cannot find module" type="Error">',
    );
  });
});
