/**
 * Serve mode is per file: two test files in two workers, each serving at once, get two ports
 * (no fixed port), and each child is answered by its own file's model. A port shared between
 * files, or a request crossing to the other file, would give a child the other file's answer
 * (or an unmatched call) and fail its case.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { runJest } from '../../support/child-jest';

describe('serve mode in two workers at once', () => {
  it('gives each file its own port, its own answers and its own runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-serve-parallel-'));
    const run = await runJest({
      testMatch: [
        '__tests__/e2e/serve/cases/served-parallel-a.case.ts',
        '__tests__/e2e/serve/cases/served-parallel-b.case.ts',
      ],
      args: ['-w', '2'],
      env: { SERVE_PARALLEL_DIR: dir },
    });
    const statuses = run.files.flatMap((f) => f.tests.map((t) => [t.status, t.failureMessages.join('\n')]));
    expect(statuses).toEqual([
      ['passed', ''],
      ['passed', ''],
    ]);
    const [a, b] = ['a', 'b'].map((x) => JSON.parse(readFileSync(join(dir, `${x}.json`), 'utf8')));
    expect(a.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/t\d+$/);
    expect(b.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/run\/t\d+$/);
    expect(new URL(a.base).origin).not.toBe(new URL(b.base).origin);
    expect(a.pid).not.toBe(b.pid);
  }, 120_000);
});
