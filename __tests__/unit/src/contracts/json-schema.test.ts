import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import {
  META_KEYWORDS,
  plainlyValid,
  schemaProblem,
  valueProblem,
} from '../../../../src/contracts/json-schema';

// The engines' options (src/contracts/json-schema.ts), with the meta-schema check left on.
const options = { strict: false, validateFormats: false, allErrors: false } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);
/** true or false, or 'unknown draft' for a `$schema` ajv has no meta-schema for. */
function validIn(ajv: Ajv, schema: unknown): boolean | 'unknown draft' {
  try {
    return ajv.validateSchema(schema as object) === true;
  } catch (error) {
    if (String(error).includes('no schema with key or ref')) return 'unknown draft';
    throw error;
  }
}

/** Values a keyword may wrongly hold: each kind the meta-schemas tell apart. */
const anyValue = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    1,
    1.5,
    2 ** 53,
    '',
    'x',
    'x#y',
    '#',
    'string',
    'strng',
    '[',
    true,
    false,
    null,
    [],
    {},
  ),
  fc.array(fc.constantFrom('a', 'a', 'string', 'number', 1, null, {}), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom(1, 'x', true, {}), { maxKeys: 2 }),
);

const KEYWORDS = [
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'anyOf',
  'oneOf',
  'allOf',
  'description',
  'title',
  'format',
  'pattern',
  '$ref',
  '$comment',
  '$schema',
  '$id',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'default',
  'const',
  'examples',
  'example',
  'exclusiveMinimum',
  'uniqueItems',
  '$defs',
  'definitions',
  'not',
  'readOnly',
  'patternProperties',
  'nullable',
  'propertyOrdering',
  'x-order',
] as const;

/** Schemas made of the keywords the hand check knows (and a few it does not), with good and bad values. */
const schemas = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.dictionary(
      fc.constantFrom(...KEYWORDS),
      fc.oneof(
        anyValue,
        tie('schema'),
        fc.array(tie('schema'), { maxLength: 2 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('schema'), { maxKeys: 2 }),
        fc.constantFrom('object', 'string', 'integer'),
        fc.array(fc.constantFrom('object', 'string', 'null', 'integer'), { maxLength: 3 }),
      ),
      { maxKeys: 4 },
    ),
  ),
})).schema;

/** The keywords of ajv's own copies of the two meta-schemas (draft-07, and 2020-12's vocabularies). */
function metaSchemaKeywords(): string[] {
  const refs = join(dirname(require.resolve('ajv/package.json')), 'dist', 'refs');
  const files = [
    join(refs, 'json-schema-draft-07.json'),
    join(refs, 'json-schema-2020-12', 'schema.json'),
    ...readdirSync(join(refs, 'json-schema-2020-12', 'meta')).map((f) =>
      join(refs, 'json-schema-2020-12', 'meta', f),
    ),
  ];
  return files.flatMap((f) => Object.keys(JSON.parse(readFileSync(f, 'utf8')).properties ?? {}));
}

describe('the hand check of a schema', () => {
  it("knows every keyword of ajv's meta-schemas (any other key is free in both)", () => {
    const missing = metaSchemaKeywords().filter((k) => !META_KEYWORDS.has(k));
    expect(missing).toEqual([]);
  });

  it('never passes a schema that either meta-schema rejects (it is compiled without them)', () => {
    let plain = 0;
    fc.assert(
      fc.property(schemas, (schema) => {
        if (!plainlyValid(schema)) return;
        plain++;
        // A draft ajv does not know is read as 2020-12: the plain keywords mean the same in every draft.
        expect({ schema, draft07: validIn(draft07, schema) }).not.toEqual({ schema, draft07: false });
        expect({ schema, draft2020: validIn(draft2020, schema) }).not.toEqual({ schema, draft2020: false });
      }),
      { numRuns: 3000, seed: 20261205 },
    );
    // The property is about the schemas it passes: enough of them must be generated.
    expect(plain).toBeGreaterThan(300);
  });

  it.each([
    ['a required name twice', { type: 'object', required: ['a', 'a'] }, '$.required'],
    ['a negative length', { type: 'string', minLength: -1 }, '$.minLength'],
    ['a fractional count', { type: 'array', maxItems: 1.5 }, '$.maxItems'],
    ['an empty anyOf', { anyOf: [] }, '$.anyOf'],
    ['an empty type list', { type: [] }, '$.type'],
    ['a type listed twice', { type: ['string', 'string'] }, '$.type'],
    ['examples that are not a list', { type: 'string', examples: 'x' }, '$.examples'],
    ['an $id with a fragment', { $id: 'item#part', type: 'object' }, '$.$id'],
  ])('sends %s to the meta-schema, which names it', (_what, schema, at) => {
    expect(plainlyValid(schema)).toBe(false);
    expect(schemaProblem(schema)).toMatch(new RegExp(`^${at.replace(/\$/g, '\\$')} `));
  });

  it('passes the schemas tools send, which then skip the meta-schema and are still checked', () => {
    const zod = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        city: { type: 'string', description: 'the city' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        units: { type: ['string', 'null'], enum: ['c', 'f', null] },
        stops: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 3 },
      },
      required: ['city', 'days', 'units', 'stops'],
      additionalProperties: false,
    };
    expect(plainlyValid(zod)).toBe(true);
    const ok = { city: 'Oslo', days: 2, units: null, stops: ['a'] };
    expect(valueProblem(zod, ok)).toBeUndefined();
    expect(valueProblem(zod, { ...ok, days: 8 })).toBe('$.days must be <= 7');
    expect(valueProblem(zod, { ...ok, units: 'k' })).toBe('$.units must be one of ["c","f",null]');
    expect(valueProblem(zod, { ...ok, stops: [''] })).toBe(
      '$.stops[0] must NOT have fewer than 1 characters',
    );
    expect(valueProblem(zod, { city: 'Oslo', days: 2, units: 'c' })).toBe(
      "$ must have required property 'stops'",
    );
  });

  it('passes $defs and $ref and keys no meta-schema knows, and checks values through the reference', () => {
    const schema = {
      type: 'object',
      properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/definitions/address' } },
      required: ['home'],
      additionalProperties: false,
      $defs: {
        address: {
          type: 'object',
          properties: { zip: { type: 'string', nullable: true } },
          required: ['zip'],
        },
      },
      definitions: { address: { type: 'object', required: ['zip'], 'x-order': 1 } },
      propertyOrdering: ['home', 'work'],
    };
    expect(plainlyValid(schema)).toBe(true);
    expect(valueProblem(schema, { home: { zip: '0150' } })).toBeUndefined();
    expect(valueProblem(schema, { home: { zip: 150 } })).toBe('$.home.zip must be string');
    expect(valueProblem(schema, { home: { zip: '1' }, work: {} })).toBe(
      "$.work must have required property 'zip'",
    );
    // A keyword of a meta-schema the hand check does not read goes to ajv, which finds its fault.
    expect(plainlyValid({ type: 'object', $defs: { a: { not: 1 } } })).toBe(false);
    expect(schemaProblem({ type: 'object', $defs: { a: { not: 1 } } })).toMatch(
      /^\$\.\$defs\.a\.not must be/,
    );
  });

  it('gives an invalid schema no validator, as a compile that checks the meta-schema would', () => {
    // A fixture cannot be held to a schema the API would have refused.
    const invalid = { type: 'object', properties: { a: { type: 'string', minLength: -1 } } };
    expect(schemaProblem(invalid)).toMatch(/^\$\.properties\.a\.minLength must be >= 0/);
    expect(valueProblem(invalid, { a: 1 })).toBeUndefined();
  });
});
