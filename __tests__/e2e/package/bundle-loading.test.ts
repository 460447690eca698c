/**
 * How the packed package's bundles load in every process that runs a test file (a Jest worker, a
 * Vitest file's process): their text is pure ASCII (V8 keeps it as a one-byte string, which Node
 * neither decodes nor scans as two bytes a character), and the files an ES module imports are not
 * read by Node as re-exports of the bundle (Node's ES module loader would parse the whole bundle for
 * export names on each `import ... from 'jest-understudy'`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { installedProject } from '../../support/installed';

const dist = join(installedProject(), 'node_modules', 'jest-understudy', 'dist');
// The lexer Jest's ES module loader reads a CommonJS file's exports with (Node vendors the same one).
const lexer = require(
  require.resolve('cjs-module-lexer', { paths: [dirname(require.resolve('jest-runtime'))] }),
) as {
  initSync(): void;
  parse(source: string): { exports: string[]; reexports: string[] };
};

describe('the bundles a test file loads', () => {
  it.each(['sandbox.cjs', 'host.cjs', 'ajv.cjs', 'environment/jest/setup.js'])('%s is pure ASCII', (name) => {
    const bytes = readFileSync(join(dist, name));
    const first = bytes.findIndex((byte) => byte >= 0x80);
    expect(first === -1 ? 'ascii' : bytes.subarray(Math.max(0, first - 60), first + 20).toString()).toBe(
      'ascii',
    );
  });

  it.each([
    'src/index.js',
    'matchers/index.js',
    'environment/jest/setup.js',
    'environment/jest/runtime.js',
    'environment/vitest/realm.js',
    'environment/vitest/session.js',
    'environment/jest/index.js',
    'sandbox-loader.js',
  ])('%s names no re-export for an ES module importer to parse', (entry) => {
    lexer.initSync();
    expect(lexer.parse(readFileSync(join(dist, entry), 'utf8')).reexports).toEqual([]);
  });
});
