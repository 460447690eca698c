/**
 * A test file's usage record (which fixtures answered): written when it says something new,
 * left as it is when the file on disk says the same (a suite run again), rewritten when it differs.
 */
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readUsage, usageFileOf, writeUsage } from '../../../../src/record/usage';

function project() {
  const root = mkdtempSync(join(tmpdir(), 'understudy-usage-'));
  const testPath = join(root, 'agent.test.ts');
  writeFileSync(testPath, '');
  const fixtures = join(root, 'chain.fixture.yaml');
  return { root, testPath, fixtures, file: usageFileOf(root, testPath) };
}

const past = new Date('2020-01-01T00:00:00Z');

describe('writeUsage', () => {
  it('leaves a record that says the same as before untouched', () => {
    const { root, testPath, fixtures, file } = project();
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]', '$.fixtures[1]'])]]));
    utimesSync(file, past, past);
    const before = readFileSync(file, 'utf8');
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[1]', '$.fixtures[0]'])]]));
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mtime).toEqual(past);
    expect(readUsage(root)).toEqual([
      expect.objectContaining({ fixtures: { [fixtures]: ['$.fixtures[0]', '$.fixtures[1]'] } }),
    ]);
  });

  it('rewrites a record whose fixtures changed, or that an empty run now contradicts', () => {
    const { root, testPath, fixtures, file } = project();
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]'])]]));
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[2]'])]]));
    expect(readUsage(root)[0].fixtures).toEqual({ [fixtures]: ['$.fixtures[2]'] });
    writeUsage(file, testPath, new Map());
    expect(readUsage(root)[0].fixtures).toEqual({});
  });

  it('rewrites a record it cannot read', () => {
    const { root, testPath, fixtures, file } = project();
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]'])]]));
    writeFileSync(file, '{ not json');
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]'])]]));
    expect(readUsage(root)[0].fixtures).toEqual({ [fixtures]: ['$.fixtures[0]'] });
  });
});
