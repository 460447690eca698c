/**
 * Where tests go (docs/architecture.md, "Tests"): a module's unit tests are in
 * __tests__/unit/<the module's folder>, so a maintainer finds them by the module's path, and every
 * test file is in a folder one of the repository's Jest projects runs (jest.config.ts), so none is
 * left out of `npm test` unseen.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = join(__dirname, '..', '..');
const tests = join(root, '__tests__');

/** The test files under a folder, as paths relative to the repository. */
function testFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => relative(root, join(folder, name)));
}

const isFolder = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

describe('test folders', () => {
  it('put each unit test file in __tests__/unit/<a folder of the sources>', () => {
    const unit = testFiles(join(tests, 'unit'));
    expect(unit.length).toBeGreaterThan(100);
    const unmirrored = unit.filter((file) => {
      const source = relative(join('__tests__', 'unit'), dirname(file));
      return source === '' || !isFolder(join(root, source));
    });
    expect(unmirrored).toEqual([]);
  });

  it('put every test file of __tests__ in a folder a tier runs', () => {
    // As jest.config.ts's testMatch: unit/**, e2e/** and the files directly in the others.
    const ran = (file: string) =>
      /^__tests__\/(unit|e2e)\//.test(file) ||
      /^__tests__\/(architecture|docs|installed)\/[^/]+\.test\.ts$/.test(file);
    const all = testFiles(tests);
    expect(all.filter((file) => !ran(file))).toEqual([]);
  });

  it('give installed drivers their runners through the tier (decision 0006), but where they compare the runners', () => {
    // A driver that lists the runners itself runs all three in every tier, unseen: `npm test` slows down.
    const listsRunners =
      /\.each\((ALL_RUNNERS|EACH_RUNNER|SHARED\[[^\]]+\]\.runners)\b|\.each\(\[\s*\[?'(jest-|vitest)|Object\.keys\(RUNNERS\)|for \(const \S+ of (ALL_RUNNERS|EACH_RUNNER)\)/;
    const drivers = testFiles(join(tests, 'installed'));
    expect(drivers.length).toBeGreaterThan(50);
    const own = drivers.filter((file) => listsRunners.test(readFileSync(join(root, file), 'utf8')));
    // vitest.test.ts checks Vitest's messages against Jest CommonJS's, case by case.
    expect(own).toEqual(['__tests__/installed/vitest.test.ts']);
  });
});
