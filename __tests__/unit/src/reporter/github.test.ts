import { describe, expect, it } from '@jest/globals';
import type { CaseResult } from '../../../../src/reporter/cases';
import {
  annotations,
  escapeData,
  escapeMarkdown,
  escapeProperty,
  fenced,
  jobSummary,
} from '../../../../src/reporter/github';

const WORKSPACE = '/work/repo';

const failing = (over: Partial<CaseResult> = {}): CaseResult => ({
  file: '/work/repo/test/refunds.test.ts',
  name: 'refunds › refunds instead of cancelling',
  status: 'failed',
  durationMs: 12,
  failure: {
    message: 'expect(received).toHaveCalledToolSequence(expected)\n\nfirst divergence at step 1',
    type: 'Error',
    line: 42,
    column: 17,
  },
  note: {
    trace:
      '/work/repo/.understudy/traces/test/refunds.test.ts/refunds › refunds instead of cancelling.trace.json',
    timeline:
      '/work/repo/.understudy/traces/test/refunds.test.ts/refunds › refunds instead of cancelling.trace.html',
    expectation: {
      matcher: 'toHaveCalledToolSequence',
      negated: false,
      expected: ['lookup_order', 'issue_refund'],
      received: ['lookup_order', 'cancel_order', 'notify'],
      rows: [
        { expected: 0, received: 0, ok: true },
        { expected: 1, received: 1, ok: false },
        { received: 2, ok: false },
      ],
    },
  },
  ...over,
});

const passing: CaseResult = {
  file: '/work/repo/test/refunds.test.ts',
  name: 'refunds › looks up',
  status: 'passed',
};

const counts = { agentRuns: 2, replayed: 5, unmatched: 0, staleCassettes: 1 };

describe('workflow command escaping (GitHub rules)', () => {
  it('escapes %, CR and LF in a message, and also : and , in a property', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext%3A a%2C b');
  });
});

describe('annotations', () => {
  it('puts an ::error at the failing line of the file, relative to the workspace, one line per test', () => {
    const lines = annotations([passing, failing()], WORKSPACE);
    expect(lines).toEqual([
      '::error file=test/refunds.test.ts,line=42,col=17,title=test/refunds.test.ts › refunds › refunds instead of cancelling::' +
        'expect(received).toHaveCalledToolSequence(expected)%0A%0Afirst divergence at step 1',
    ]);
  });

  it('escapes the properties: a test name with a colon and a comma cannot end the title early', () => {
    const [line] = annotations([failing({ name: 'a: b, c' })], WORKSPACE);
    expect(line).toContain('title=test/refunds.test.ts › a%3A b%2C c::');
  });

  it('leaves file and line out for a test file outside the workspace (GitHub could not place it)', () => {
    const [line] = annotations([failing({ file: '/elsewhere/x.test.ts' })], WORKSPACE);
    expect(line).toMatch(
      /^::error title=\/elsewhere\/x\.test\.ts › refunds › refunds instead of cancelling::/,
    );
  });

  it('names a file that failed outside its tests, and strips colours and the trace note from the message', () => {
    const [line] = annotations(
      [
        failing({
          name: '',
          failure: {
            message:
              '\u001b[31mboom\u001b[39m\n\nUnderstudy trace:    a.trace.json\nUnderstudy timeline: a.trace.html',
            type: 'Error',
          },
        }),
      ],
      WORKSPACE,
    );
    expect(line).toBe(
      '::error file=test/refunds.test.ts,title=test/refunds.test.ts (outside its tests)::boom',
    );
  });

  it('blanks a key in the message, whatever the escaping would make of it', () => {
    const key = 'sk-proj-ANNOTATIONKEY0123456789abcdefghij';
    const [line] = annotations([failing({ failure: { message: `got ${key}\n`, type: 'Error' } })], WORKSPACE);
    expect(line).not.toContain('ANNOTATIONKEY');
  });
});

describe('job summary', () => {
  it('has the counts, and each failing test with its line, trajectory diff, message, trace and timeline', () => {
    const text = jobSummary([passing, failing()], { workspace: WORKSPACE, runner: 'Jest', counts });
    expect(text).toContain('## ❌ jest-understudy (Jest): 1 failed, 1 passed\n');
    expect(text).toContain('| 2 | 1 | 1 | 0 | 2 | 5 | 0 | 1 |');
    expect(text).toContain('#### ❌ test/refunds.test.ts › refunds › refunds instead of cancelling');
    expect(text).toContain('At `test/refunds.test.ts:42`');
    expect(text).toContain('```diff\n  lookup_order\n- issue_refund\n+ cancel_order\n+ notify\n```');
    expect(text).toContain(
      '```text\nexpect(received).toHaveCalledToolSequence(expected)\n\nfirst divergence at step 1\n```',
    );
    expect(text).toContain(
      'Trace: `.understudy/traces/test/refunds.test.ts/refunds › refunds instead of cancelling.trace.json` · ' +
        'Timeline: `.understudy/traces/test/refunds.test.ts/refunds › refunds instead of cancelling.trace.html`',
    );
    expect(text).not.toContain('looks up');
  });

  it('says so when every test passed, and lists no failures', () => {
    const text = jobSummary([passing], { workspace: WORKSPACE, runner: 'Vitest', counts });
    expect(text).toContain('## ✅ jest-understudy (Vitest): 0 failed, 1 passed');
    expect(text).not.toContain('Failing tests');
  });

  it('shows a forbidden order as such', () => {
    const c = failing();
    const note = { ...c.note, expectation: { ...c.note!.expectation!, negated: true, rows: [] } };
    const text = jobSummary([{ ...c, note }], { workspace: WORKSPACE, runner: 'Jest', counts });
    expect(text).toContain(
      'forbidden: lookup_order → issue_refund\nreceived:  lookup_order → cancel_order → notify',
    );
  });

  it('escapes Markdown in names and fences a message that holds backticks', () => {
    expect(escapeMarkdown('a *b* <img> | c')).toBe('a \\*b\\* \\<img\\> \\| c');
    expect(fenced('has ``` inside', 'text')).toBe('````text\nhas ``` inside\n````');
    const text = jobSummary(
      [failing({ name: '<script>x</script> | y', failure: { message: '```\nbreak out', type: 'Error' } })],
      { workspace: WORKSPACE, runner: 'Jest', counts },
    );
    expect(text).toContain('› \\<script\\>x\\</script\\> \\| y');
    expect(text).toContain('````text\n```\nbreak out\n````');
  });

  it('lists failures past the limit by name only', () => {
    const many = Array.from({ length: 5 }, (_, i) => failing({ name: `test ${i}` }));
    const text = jobSummary(many, { workspace: WORKSPACE, runner: 'Jest', counts, maxFailures: 2 });
    expect(text.match(/^#### ❌/gm)).toHaveLength(2);
    expect(text).toContain(
      "And 3 more failing tests (see the job's log):\n\n- test/refunds.test.ts › test 2",
    );
  });

  it('ends with the live table when there is one', () => {
    const text = jobSummary([passing], {
      workspace: WORKSPACE,
      runner: 'Jest',
      counts,
      live: '### Live pass rates',
    });
    expect(text.trimEnd().endsWith('### Live pass rates')).toBe(true);
  });

  it('blanks the keys in use and anything shaped like one', () => {
    const key = 'sk-ant-api03-SUMMARYKEY0123456789abcdefghijklmnop';
    const text = jobSummary(
      [failing({ failure: { message: `Authorization: Bearer ${key}`, type: 'Error' } })],
      {
        workspace: WORKSPACE,
        runner: 'Jest',
        counts,
      },
    );
    expect(text).not.toContain('SUMMARYKEY');
  });
});
