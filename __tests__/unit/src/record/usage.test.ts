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

  it('compares what it would write, scrubbed: a record naming a key in use is left as written, one holding the key is rewritten', () => {
    const { root, testPath, file } = project();
    const key = 'sk-usage-test-0123456789abcdefghij';
    const fixtures = join(root, `${key}.fixture.yaml`);
    const used = () => new Map([[fixtures, new Set(['$.fixtures[0]'])]]);
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = key;
    try {
      writeUsage(file, testPath, used());
      const written = readFileSync(file, 'utf8');
      expect(written).not.toContain(key);
      utimesSync(file, past, past);
      writeUsage(file, testPath, used());
      expect(statSync(file).mtime).toEqual(past);
      // A copy on disk that holds the key (written by hand, or before the key was in use) is not "the same".
      writeFileSync(file, written.replaceAll('[REDACTED]', key));
      expect(readFileSync(file, 'utf8')).toContain(key);
      utimesSync(file, past, past);
      writeUsage(file, testPath, used());
      expect(readFileSync(file, 'utf8')).not.toContain(key);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it('rewrites a record it cannot read', () => {
    const { root, testPath, fixtures, file } = project();
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]'])]]));
    writeFileSync(file, '{ not json');
    writeUsage(file, testPath, new Map([[fixtures, new Set(['$.fixtures[0]'])]]));
    expect(readUsage(root)[0].fixtures).toEqual({ [fixtures]: ['$.fixtures[0]'] });
  });
});
