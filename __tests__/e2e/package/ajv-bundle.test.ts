/**
 * The packed package's dist/ajv.cjs (scripts/bundle-ajv.cjs) is the installed ajv's twin: the same
 * version, the same validation results and errors, the same messages for a schema it refuses, for
 * both drafts the package uses. It runs from the code cache where the installed modules would run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import type { default as AjvClass } from 'ajv';
import { installedProject } from '../../support/installed';

const project = installedProject();
const requireInProject = (id: string): any => require(require.resolve(id, { paths: [project] }));

/** The bundle as the environment runs it: a CommonJS script, compiled by vm, in this realm. */
function runBundle(file: string): { version: string; Ajv: typeof AjvClass; Ajv2020: typeof AjvClass } {
  const wrapper = new vm.Script(`(function (exports, require, module) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
  }).runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as any };
  // Built-ins only (the build checks it): a require of anything else fails here.
  wrapper(module.exports, (id: string) => (id.startsWith('node:') ? require(id) : undefined), module);
  return module.exports;
}

const OPTIONS = [
  { allErrors: true, strict: false, allowUnionTypes: true, validateSchema: false },
  { strict: false, validateFormats: false, allErrors: false },
];

/** Schemas and values whose results and errors must match: valid, invalid, 2020-only keywords. */
const CASES: Array<{ schema: object; values: unknown[] }> = [
  {
    schema: {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^o-' }, qty: { type: 'integer', minimum: 1 } },
      required: ['id', 'qty'],
      additionalProperties: false,
    },
    values: [{ id: 'o-1', qty: 2 }, { id: 'x', qty: 0, extra: true }, { qty: 'many' }, [], null],
  },
  {
    schema: {
      type: 'array',
      items: { anyOf: [{ type: 'string', maxLength: 3 }, { enum: [1, 2] }] },
      uniqueItems: true,
    },
    values: [['ab', 1], ['abcd', 3], ['a', 'a'], [{ a: 1 }]],
  },
  {
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      prefixItems: [{ type: 'number' }],
      properties: { tags: { type: 'array', prefixItems: [{ const: 'a' }], items: false } },
      unevaluatedProperties: false,
      dependentRequired: { tags: ['name'] },
    },
    values: [{ name: 'x', tags: ['a'] }, { tags: ['b', 'c'] }, { other: 1 }],
  },
];

/** What a class makes of CASES: each result with its errors, or the message a compile threw. */
function outcomes(Ajv: typeof AjvClass): unknown[] {
  const out: unknown[] = [];
  for (const options of OPTIONS)
    for (const { schema, values } of CASES) {
      const ajv = new Ajv(options);
      try {
        const validate = ajv.compile(schema);
        for (const value of values) out.push([validate(value), validate.errors]);
      } catch (error) {
        out.push((error as Error).message);
      }
    }
  return out;
}

/** Schemas ajv refuses, with the message it throws (kept word for word). */
const BAD_SCHEMAS: object[] = [
  { type: 'strin' },
  { type: 'string', pattern: '(' },
  { $ref: '#/definitions/missing' },
  { properties: { a: { $ref: 'other.json#/x' } } },
];

function thrown(Ajv: typeof AjvClass, options: object): Array<[string, string]> {
  return BAD_SCHEMAS.map((schema) => {
    try {
      new Ajv(options).compile(schema);
      return ['compiled', ''];
    } catch (error) {
      return [(error as Error).constructor.name, (error as Error).message];
    }
  });
}

describe("the package's ajv bundle", () => {
  const bundled = runBundle(join(project, 'node_modules', 'jest-understudy', 'dist', 'ajv.cjs'));
  const installed = requireInProject('ajv').default as typeof AjvClass;
  const installed2020 = requireInProject('ajv/dist/2020').default as typeof AjvClass;

  it('is made from the installed ajv, and is not that module', () => {
    expect(bundled.version).toBe(requireInProject('ajv/package.json').version);
    expect(bundled.Ajv).not.toBe(installed);
  });

  it('validates as the installed ajv does, draft-07 and 2020-12, results and errors', () => {
    const mine = outcomes(bundled.Ajv);
    expect(mine).toEqual(outcomes(installed));
    expect(mine.some((o) => Array.isArray(o) && o[0] === false)).toBe(true);
    expect(outcomes(bundled.Ajv2020)).toEqual(outcomes(installed2020));
  });

  it('refuses the same schemas with the same errors and messages', () => {
    for (const options of OPTIONS) {
      const mine = thrown(bundled.Ajv, options);
      expect(mine).toEqual(thrown(installed, options));
      expect(mine.filter(([name]) => name === 'compiled')).toEqual([]);
    }
    // The meta-schema check (tool schemas from requests) words its findings as the installed one does.
    const metaOf = (Ajv: typeof AjvClass) => {
      const engine = new Ajv({ strict: false });
      return [engine.validateSchema({ type: 'object', properties: { a: { minLength: -1 } } }), engine.errors];
    };
    expect(metaOf(bundled.Ajv)).toEqual(metaOf(installed));
    expect(metaOf(bundled.Ajv)[0]).toBe(false);
  });
});
