/**
 * One error model: every code comes from src/errors/codes.ts, every code there is raised
 * somewhere, docs/errors.md is exactly what the table generates, and `isUnderstudyError`
 * knows the package's errors from any realm and any copy of the package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { transformSync } from '@swc/core';
import {
  FileIssuesError,
  FixtureFileError,
  GoldenFileError,
  isUnderstudyError,
  ToolMockError,
  UnderstudyError,
  WorldError,
  WorldFileError,
} from 'jest-understudy';
import { ERROR_AREAS, ERROR_CODES, markError } from '../../src/errors';
import { ENGINE_ERRORS } from '../../src/world/errors';

const root = join(__dirname, '..', '..');
const { renderErrorDocs } = require('../../scripts/write-docs.cjs') as {
  renderErrorDocs(table: { ERROR_AREAS: unknown; ERROR_CODES: unknown }): string;
};

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) sources(path, out);
    else if (/\.(ts|js)$/.test(entry.name) && path !== 'src/errors/codes.ts') out.push(path);
  }
  return out;
}

describe('the error-code table', () => {
  it('docs/errors.md is what the table generates (run `npm run docs` after changing it)', () => {
    expect(readFileSync(join(root, 'docs', 'errors.md'), 'utf8')).toBe(
      renderErrorDocs({ ERROR_AREAS, ERROR_CODES }),
    );
  });

  it('every code in the table is raised somewhere in the package (none is declared and unused)', () => {
    const text = ['src', 'environment', 'matchers']
      .flatMap((dir) => sources(dir))
      .map((file) => readFileSync(join(root, file), 'utf8'))
      .join('\n');
    const unused = Object.keys(ERROR_CODES).filter(
      (code) => !new RegExp(`['"\`]${code}['"\`]|\\b${code}:`).test(text),
    );
    expect(unused).toEqual([]);
  });

  it('every code the package raises is in the table (nothing raised with a code it does not document)', () => {
    const raised = new Set<string>();
    for (const file of ['src', 'environment', 'matchers'].flatMap((dir) => sources(dir))) {
      const text = readFileSync(join(root, file), 'utf8');
      const pattern =
        /(?:\bcode: |Error\(\s*|\w\.fail\(\s*|markError\([^;]*?,\s*|isUnderstudyError\([^,]+,\s*)'([A-Z][A-Z_]+)'/g;
      for (const [, code] of text.matchAll(pattern)) raised.add(code);
    }
    // Node's own errno codes (a read failure as the fs module reports it) are not ours.
    const ours = [...raised].filter((code) => !/^E[A-Z]+$/.test(code));
    expect(ours.length).toBeGreaterThan(40);
    expect(ours.filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });

  it('every engine failure of a world operation is documented under tool failures', () => {
    for (const code of Object.keys(ENGINE_ERRORS))
      expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toMatchObject({ area: 'tools' });
  });

  it('every entry says what happened and what to do, in its area', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z_]+$/);
      expect(Object.keys(ERROR_AREAS)).toContain(info.area);
      expect(info.meaning.length).toBeGreaterThan(20);
      expect(info.action.length).toBeGreaterThan(10);
    }
  });
});

describe('isUnderstudyError', () => {
  it('knows every error class of the package, with its code', () => {
    const issue = { code: 'FIXTURE_PARSE_ERROR' as const, file: '/a.json', path: '$', message: 'bad' };
    const errors = [
      new UnderstudyError('BAD_ARGUMENT', 'x'),
      new FixtureFileError([issue]),
      new WorldFileError([{ ...issue, code: 'WORLD_REFERENCE' }]),
      new GoldenFileError([{ ...issue, code: 'GOLDEN_PARSE_ERROR' }]),
      new WorldError('WORLD_MISSING', 'x'),
    ];
    for (const error of errors) {
      expect(isUnderstudyError(error)).toBe(true);
      expect(error).toBeInstanceOf(UnderstudyError);
      expect(isUnderstudyError(error, error.code)).toBe(true);
      expect(isUnderstudyError(error, 'CASSETTE_LEAK')).toBe(false);
    }
    expect(errors.slice(1, 4).every((e) => e instanceof FileIssuesError)).toBe(true);
    expect(errors.map((e) => e.code)).toEqual([
      'BAD_ARGUMENT',
      'FIXTURE_PARSE_ERROR',
      'WORLD_REFERENCE',
      'GOLDEN_PARSE_ERROR',
      'WORLD_MISSING',
    ]);
  });

  it('a file error takes its issues’ code when they share one of its format, else the format’s own', () => {
    const at = { file: '/a.yaml', path: '$', message: 'bad' };
    const mixed = new FixtureFileError([
      { ...at, code: 'FIXTURE_PARSE_ERROR' },
      { ...at, code: 'FIXTURE_READ_ERROR' },
    ]);
    expect(mixed.code).toBe('FIXTURE_INVALID');
    expect(mixed.message).toBe('Fixture file /a.yaml: 2 problems\n  /a.yaml at $: bad\n  /a.yaml at $: bad');
    // A golden file's inline fixtures report fixture codes; the error stays a golden one.
    expect(new GoldenFileError([{ ...at, code: 'FIXTURE_INVALID' }]).code).toBe('GOLDEN_INVALID');
    expect(() => new FixtureFileError([])).toThrow('FixtureFileError needs at least one issue');
  });

  it('is false for anything else: a plain Error, a tool failure, a look-alike, non-objects', () => {
    const lookalike = Object.assign(new Error('x'), { name: 'UnderstudyError', code: 'BAD_ARGUMENT' });
    const tool = new ToolMockError(
      { code: 'NOT_FOUND', message: 'gone', retryable: false, status: 404 },
      { packageId: 'p', operationId: 'o' },
    );
    for (const value of [lookalike, tool, new Error('x'), null, undefined, 'BAD_ARGUMENT', 42])
      expect(isUnderstudyError(value)).toBe(false);
  });

  it('knows an error made by another copy of the package in another realm, where instanceof fails', () => {
    const compile = (file: string) =>
      transformSync(readFileSync(join(root, file), 'utf8'), {
        filename: file,
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
      }).code;
    const codes = { exports: {} };
    runInNewContext(compile('src/errors/codes.ts'), { exports: codes.exports, module: codes });
    const copy: { exports: Record<string, any> } = { exports: {} };
    runInNewContext(compile('src/errors/index.ts'), {
      exports: copy.exports,
      module: copy,
      require: () => codes.exports,
    });
    const foreign = new copy.exports.UnderstudyError('RECORD_REFUSED', 'from the other realm');
    expect(foreign instanceof Error).toBe(false); // another realm's Error
    expect(foreign).not.toBeInstanceOf(UnderstudyError);
    expect(isUnderstudyError(foreign, 'RECORD_REFUSED')).toBe(true);
    expect(copy.exports.isUnderstudyError(new UnderstudyError('RECORD_REFUSED', 'x'))).toBe(true);
  });

  it('knows an error that keeps its own class (a TypeError as fetch throws) once marked', () => {
    const error = markError(new TypeError('fetch after teardown'), 'FETCH_AFTER_TEARDOWN');
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('FETCH_AFTER_TEARDOWN');
    expect(isUnderstudyError(error, 'FETCH_AFTER_TEARDOWN')).toBe(true);
  });
});
