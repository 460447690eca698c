import { describe, expect, it } from '@jest/globals';
import { schemaProblem, valueProblem } from '../../../../src/contracts/json-schema';
import { enabledRules, RULE_IDS, settingProblem } from '../../../../src/contracts/rules';
import { openapiToJsonSchema } from '../../../../src/contracts/structured-output';
import { openaiToolProblem } from '../../../../src/contracts/tool-definitions';

describe('contract settings', () => {
  it('start with every rule on; later layers win rule by rule', () => {
    expect([...enabledRules([])]).toEqual(RULE_IDS);
    expect(enabledRules([false]).size).toBe(0);
    const some = enabledRules([false, { reasoning: true }, undefined]);
    expect([...some]).toEqual(['reasoning']);
    const most = enabledRules([true, { reasoning: false }, { 'tool-results': false }]);
    expect(most.has('reasoning') || most.has('tool-results')).toBe(false);
    expect(most.size).toBe(RULE_IDS.length - 2);
  });

  it('name what is wrong with a setting', () => {
    expect(settingProblem(true)).toBeUndefined();
    expect(settingProblem({ reasoning: false })).toBeUndefined();
    expect(settingProblem(['reasoning'])).toMatch(/^expected true, false or an object/);
    expect(settingProblem({ reasonning: false })).toMatch(
      /^unknown rule "reasonning"; the rules are tool-results/,
    );
    expect(settingProblem({ reasoning: 0 })).toBe('rule "reasoning" must be true or false, received 0');
  });
});

describe('JSON Schemas', () => {
  it('tell a valid schema from an invalid one, with the place in it', () => {
    expect(
      schemaProblem({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }),
    ).toBeUndefined();
    // Outside the common shape: checked by ajv, still valid.
    expect(
      schemaProblem({ type: 'object', properties: { n: { type: 'integer', exclusiveMinimum: 0 } } }),
    ).toBeUndefined();
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'strng' } } })).toMatch(
      /^\$\.properties\.a\.type must be/,
    );
    expect(schemaProblem({ type: 'object', required: 'a' })).toMatch(/^\$\.required must be array/);
    // A draft-07 schema (zod-to-json-schema) is read as draft-07: tuple `items` is fine there.
    expect(
      schemaProblem({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'array',
        items: [{ type: 'string' }],
      }),
    ).toBeUndefined();
  });

  it('name the JSON path where a value breaks a schema', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } } } },
      },
      additionalProperties: false,
    };
    expect(valueProblem(schema, { items: [{ qty: 1 }, { qty: 'x' }] })).toBe(
      '$.items[1].qty must be integer',
    );
    expect(valueProblem(schema, { items: [], extra: 1 })).toBe(
      '$ has the property "extra", which the schema does not allow',
    );
    expect(valueProblem(schema, { items: [] })).toBeUndefined();
  });

  it("read Gemini's OpenAPI-style Schema as JSON Schema", () => {
    expect(
      openapiToJsonSchema({
        type: 'OBJECT',
        properties: {
          city: { type: 'STRING', nullable: true },
          tags: { type: 'ARRAY', items: { type: 'STRING' } },
        },
        propertyOrdering: ['city', 'tags'],
        required: ['city'],
      }),
    ).toEqual({
      type: 'object',
      properties: { city: { type: ['string', 'null'] }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['city'],
    });
  });
});

describe('OpenAI tool limits', () => {
  const fn = (name: string, parameters?: unknown, strict?: boolean) => ({
    type: 'function',
    function: { name, ...(parameters ? { parameters } : {}), ...(strict ? { strict } : {}) },
  });

  it('at most 128 tools, names up to 64 characters, object parameters', () => {
    expect(
      openaiToolProblem(
        Array.from({ length: 129 }, (_, i) => fn(`t${i}`)),
        true,
      )?.error.message,
    ).toBe(
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead.",
    );
    expect(openaiToolProblem([fn('x'.repeat(65))], true)?.error).toMatchObject({
      code: 'string_above_max_length',
      param: 'tools[0].function.name',
    });
    expect(openaiToolProblem([fn('lookup', { type: 'string' })], true)?.error.message).toBe(
      `Invalid schema for function 'lookup': schema must be a JSON Schema of 'type: "object"', got 'type: "string"'.`,
    );
    expect(openaiToolProblem([fn('ok', { type: 'object', properties: {} })], true)).toBeUndefined();
  });

  it('strict schemas: every property required, objects closed, nested ones too', () => {
    const nested = {
      type: 'object',
      properties: {
        address: { type: 'object', properties: { zip: { type: 'string' } }, additionalProperties: false },
      },
      required: ['address'],
      additionalProperties: false,
    };
    expect(openaiToolProblem([fn('ship', nested, true)], true)?.error.message).toBe(
      "Invalid schema for function 'ship': In context=('properties', 'address'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'zip'.",
    );
    // Not strict: the same schema is fine.
    expect(openaiToolProblem([fn('ship', nested)], true)).toBeUndefined();
  });
});
