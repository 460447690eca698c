/**
 * Two test files in parallel Jest workers that write the same world file never see each
 * other's state: each file has its own world (its own engine in its own sandbox).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runWorldCases } from './run-cases';

describe('worlds in parallel workers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-world-barrier-'));
  const results = runWorldCases('*.case.ts', { WORLD_CASES_DIR: dir });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const byFile = (name: string) => results.find((r) => r.file.endsWith(name))!;

  it('two files writing the same world at the same time, in two workers, each see only their own state', () => {
    expect(byFile('writer-a.case.ts').tests).toEqual([expect.objectContaining({ status: 'passed' })]);
    expect(byFile('writer-b.case.ts').tests).toEqual([expect.objectContaining({ status: 'passed' })]);
    const workers = ['a', 'b'].map((w) => readFileSync(join(dir, `worker-${w}`), 'utf8'));
    expect(workers[0]).not.toBe(workers[1]);
  });

  it('a file whose world is refused fails before its tests, with the file, line and JSON path', () => {
    const broken = byFile('broken-world.case.ts');
    expect(broken.failureMessage).toContain('WorldFileError');
    expect(broken.failureMessage).toMatch(
      /broken\.world\.yaml:8:\d+ at \$\.toolOverrides\[0\]\.operation\.operationId: package "shop" has no operation "orders\.gett" — did you mean "orders\.get"\?/,
    );
  });
});
