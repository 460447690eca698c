/**
 * The prologue that makes the built-ins the sandbox code names locals (scripts/sandbox-prologue.cjs):
 * it must leave a module's "use strict" directive first and its lines where they were, and it
 * must reach the sandbox's files (the bundle, and the source files the tests run), not others.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { installedProject } from '../../support/installed';

const root = join(__dirname, '..', '..', '..');
const { NAMES, PROLOGUE, withPrologue } = require(join(root, 'scripts', 'sandbox-prologue.cjs')) as {
  NAMES: string[];
  PROLOGUE: string;
  withPrologue(code: string): string;
};
const transformer = require(join(root, 'scripts', 'jest-transform.cjs')) as {
  createTransformer(options: object): {
    process(source: string, path: string, config: object): { code: string };
  };
};

describe('the sandbox prologue', () => {
  it('keeps "use strict" first, so a strict module stays strict', () => {
    const code = withPrologue('"use strict";\nundeclared = 1;\n');
    expect(code.startsWith(`"use strict";${PROLOGUE}`)).toBe(true);
    expect(() => runInNewContext(code)).toThrow(/undeclared is not defined/);
  });

  it('moves no line, so source maps still fit', () => {
    const source = '"use strict";\nconst a = JSON.stringify([1]);\nmodule.exports = a;\n';
    expect(withPrologue(source).split('\n').slice(1)).toEqual(source.split('\n').slice(1));
  });

  it('binds only built-ins that nothing swaps once the sandbox is set up', () => {
    for (const swapped of [
      'Date',
      'performance',
      'setTimeout',
      'queueMicrotask',
      'fetch',
      'Request',
      'Response',
      'Headers',
      'process',
      'console',
    ])
      expect(NAMES).not.toContain(swapped);
    const bound = runInNewContext(`${withPrologue('')}; [${NAMES.join(', ')}]`, {
      Buffer,
      TextDecoder,
      TextEncoder,
      URL,
    });
    expect(bound.every((value: unknown) => value !== undefined)).toBe(true);
  });

  it("reaches the package's sandbox files in the tests' transform, and nothing else", () => {
    const transform = transformer.createTransformer({
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    });
    const config = {
      cwd: root,
      config: {},
      transformerConfig: {},
      cacheFS: new Map(),
      supportsStaticESM: false,
    } as object;
    const source = 'export const x = JSON.stringify(1);\n';
    expect(transform.process(source, join(root, 'src', 'x.ts'), config).code).toContain(PROLOGUE);
    expect(transform.process(source, join(root, '__tests__', 'x.test.ts'), config).code).not.toContain(
      PROLOGUE,
    );
  });

  it('starts the bundle of the installed package', () => {
    const bundle = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'sandbox.cjs');
    expect(readFileSync(bundle, 'utf8').startsWith(PROLOGUE)).toBe(true);
  });
});
