/**
 * Two test files in parallel Jest workers that write the same world file never see each
 * other's state: each file has its own world (its own engine in its own sandbox).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildFile, runJest } from '../../support/child-jest';

describe('worlds in parallel workers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-world-barrier-'));
  let results: ChildFile[] = [];
  beforeAll(async () => {
    const child = await runJest({
      testMatch: ['__tests__/e2e/world/cases/*.case.ts'],
      args: ['--maxWorkers=2'],
      env: { WORLD_CASES_DIR: dir },
    });
    results = child.files;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const byFile = (name: string) => results.find((r) => r.name.endsWith(name))!;

  it('two files writing the same world at the same time, in two workers, each see only their own state', () => {
    expect(byFile('writer-a.case.ts').tests).toEqual([expect.objectContaining({ status: 'passed' })]);
    expect(byFile('writer-b.case.ts').tests).toEqual([expect.objectContaining({ status: 'passed' })]);
    const workers = ['a', 'b'].map((w) => readFileSync(join(dir, `worker-${w}`), 'utf8'));
    expect(workers[0]).not.toBe(workers[1]);
  });

  it('a file whose world is refused fails before its tests, with the file, line and JSON path', () => {
    const broken = byFile('broken-world.case.ts');
    expect(broken.message).toContain('WorldFileError');
    expect(broken.message).toMatch(
      /broken\.world\.yaml:8:\d+ at \$\.toolOverrides\[0\]\.operation\.operationId: package "shop" has no operation "orders\.gett" — did you mean "orders\.get"\?/,
    );
  });
});
