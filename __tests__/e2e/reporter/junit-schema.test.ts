/**
 * The reporter's JUnit XML against the common JUnit schema (Jenkins' junit-10.xsd), checked by
 * xmllint: the documents the renderer makes of every kind of result, and of text XML cannot hold.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { CaseResult } from '../../../src/reporter/cases';
import { junitXml } from '../../../src/reporter/junit';

const SCHEMA = join(__dirname, '..', '..', 'support', 'junit-10.xsd');
const ROOT = '/work/repo';

/** xmllint's verdict on the document ('' when valid). */
function schemaProblems(xml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'junit-')), 'report.xml');
  writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--schema', SCHEMA, file], { stdio: 'pipe' });
    return '';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

const failed = (over: Partial<CaseResult>): CaseResult => ({
  file: '/work/repo/test/a.test.ts',
  name: 'a › fails',
  status: 'failed',
  durationMs: 20,
  failure: { message: 'expected <x> & "y"', type: 'JestAssertionError', line: 9 },
  ...over,
});

describe('JUnit XML against junit-10.xsd', () => {
  it('is valid with passed, failed, skipped tests, a file error, properties and attachments', () => {
    const xml = junitXml(
      [
        { file: '/work/repo/test/a.test.ts', name: 'a › passes', status: 'passed', durationMs: 123456.7 },
        failed({
          note: {
            trace: '/work/repo/.understudy/traces/a.trace.json',
            timeline: '/work/repo/.understudy/traces/a.trace.html',
            expectation: {
              matcher: 'toHaveCalledToolSequence',
              negated: false,
              expected: ['lookup'],
              received: ['cancel'],
              rows: [{ expected: 0, received: 0, ok: false }],
            },
          },
        }),
        { file: '/work/repo/test/a.test.ts', name: 'a › later', status: 'skipped' },
        failed({
          file: '/work/repo/test/b.test.ts',
          name: '',
          failure: { message: 'Cannot find module', type: 'Error' },
        }),
      ],
      { root: ROOT },
    );
    expect(schemaProblems(xml)).toBe('');
  });

  it('stays valid with characters XML 1.0 cannot hold (control characters, lone surrogates)', () => {
    const xml = junitXml(
      [failed({ name: 'n\u0000\ud800"<&', failure: { message: '\u001b[31m\uffff\u0007', type: 'E' } })],
      {
        root: ROOT,
      },
    );
    expect(schemaProblems(xml)).toBe('');
  });

  it('is valid for a run with no tests', () => {
    expect(schemaProblems(junitXml([], { root: ROOT }))).toBe('');
  });

  it('is refused by the schema when broken: the check can fail', () => {
    const broken = junitXml([failed({})], { root: ROOT }).replace(/(<testsuite [^>]*?) failures="1"/, '$1');
    expect(schemaProblems(broken)).toMatch(/failures.*required|attribute 'failures'/);
  });
});
