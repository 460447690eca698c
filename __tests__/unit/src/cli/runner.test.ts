import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { detectRunner } from '../../../../src/cli/runner';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-runner-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const pkg = (value: object) => JSON.stringify(value);

describe('detectRunner', () => {
  it.each([
    ['a vitest config file', { 'vitest.config.mts': '' }, 'vitest'],
    ['a jest config file', { 'jest.config.js': '' }, 'jest'],
    ['the test script (vitest)', { 'package.json': pkg({ scripts: { test: 'vitest --run' } }) }, 'vitest'],
    ['the test script (jest)', { 'package.json': pkg({ scripts: { test: 'jest --ci' } }) }, 'jest'],
    [
      'the "jest" key of package.json',
      { 'package.json': pkg({ jest: { preset: 'jest-understudy' } }) },
      'jest',
    ],
    [
      'vitest among the dependencies only',
      { 'package.json': pkg({ devDependencies: { vitest: '^5' } }) },
      'vitest',
    ],
    ['nothing to go by (the default)', {}, 'jest'],
    [
      'both config files, the test script deciding',
      { 'vitest.config.ts': '', 'jest.config.js': '', 'package.json': pkg({ scripts: { test: 'vitest' } }) },
      'vitest',
    ],
  ])('%s', (_, files, runner) => {
    expect(detectRunner(project(files))).toMatchObject({ runner });
  });

  it('asks for --runner when both config files are there and nothing else decides', () => {
    expect(detectRunner(project({ 'vitest.config.ts': '', 'jest.config.js': '' }))).toEqual({
      problem:
        'the project has both a jest.config and a vitest.config file: choose one with --runner jest or --runner vitest',
    });
  });
});
