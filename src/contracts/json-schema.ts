/**
 * JSON Schemas as the APIs read them: is a tool's schema a valid schema, and does a value fit
 * one. Schemas come from requests, so each distinct schema is compiled (or checked) once per
 * file and kept; ajv is loaded on first use, as requests without schemas never need it. Checking
 * a schema against its draft's meta-schema makes ajv compile that meta-schema in every test file
 * (25-45 ms), so a schema the hand check below proves valid is compiled without it.
 */
import type { ValidateFunction } from 'ajv';
import { ajvLibrary } from '../ajv';
import { formatPath, pointerToSegments } from '../file-format/json-path';

interface Engines {
  draft07: import('ajv').default;
  draft2020: import('ajv').default;
}

let engines: Engines | undefined;

function enginesOf(): Engines {
  if (!engines) {
    const { Ajv, Ajv2020 } = ajvLibrary();
    // Request schemas carry formats and vendor keywords (`propertyOrdering`, `x-…`) the APIs accept.
    // A schema is checked against its meta-schema below, only where `plainlyValid` cannot tell.
    const options = {
      strict: false,
      validateFormats: false,
      allErrors: false,
      validateSchema: false,
    } as const;
    engines = { draft07: new Ajv(options), draft2020: new Ajv2020(options) };
  }
  return engines;
}

/** zod-to-json-schema and older tools write draft-07; everything else is read as 2020-12. */
function engineFor(schema: unknown): import('ajv').default {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  const e = enginesOf();
  return typeof declared === 'string' && /draft-0[67]/.test(declared) ? e.draft07 : e.draft2020;
}

const LIMIT = 500;

function remember<V>(cache: Map<string, V>, key: string, value: V): V {
  if (cache.size >= LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

const metaCache = new Map<string, string | null>();

const TYPES = new Set(['object', 'string', 'number', 'integer', 'boolean', 'array', 'null']);
const TEXT_KEYWORDS = new Set(['description', 'title', 'format', 'pattern', '$ref', '$comment', '$schema']);
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum']);
const COUNT_KEYWORDS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);
const FREE_KEYWORDS = new Set(['default', 'const']);
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);
/**
 * Every keyword of ajv's draft-07 and 2020-12 meta-schemas. Any other key (`nullable`,
 * `propertyOrdering`, `x-…`) is one neither meta-schema constrains, whatever its value.
 */
export const META_KEYWORDS: ReadonlySet<string> = new Set([
  ...['$anchor', '$comment', '$defs', '$dynamicAnchor', '$dynamicRef', '$id', '$recursiveAnchor'],
  ...['$recursiveRef', '$ref', '$schema', '$vocabulary', 'additionalItems', 'additionalProperties'],
  ...['allOf', 'anyOf', 'const', 'contains', 'contentEncoding', 'contentMediaType', 'contentSchema'],
  ...['default', 'definitions', 'dependencies', 'dependentRequired', 'dependentSchemas', 'deprecated'],
  ...['description', 'else', 'enum', 'examples', 'exclusiveMaximum', 'exclusiveMinimum', 'format'],
  ...['if', 'items', 'maxContains', 'maxItems', 'maxLength', 'maxProperties', 'maximum', 'minContains'],
  ...['minItems', 'minLength', 'minProperties', 'minimum', 'multipleOf', 'not', 'oneOf', 'pattern'],
  ...['patternProperties', 'prefixItems', 'properties', 'propertyNames', 'readOnly', 'required', 'then'],
  ...['title', 'type', 'unevaluatedItems', 'unevaluatedProperties', 'uniqueItems', 'writeOnly'],
]);

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const unique = (values: readonly unknown[]) => new Set(values).size === values.length;
const isPrimitive = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function');

/**
 * The common tool schema (types, properties, required, items, enum, descriptions, `$defs` and
 * `$ref`…) checked by hand: a schema made only of these, each as both meta-schemas (ajv's draft-07
 * and 2020-12) require it, and of keys neither meta-schema knows, is valid in every draft. A
 * schema with any other keyword goes to ajv. Every request carries its
 * tools, so this is on the hot path; and a schema it passes is compiled without the meta-schema,
 * so it must never pass one that a meta-schema rejects.
 */
export function plainlyValid(schema: unknown, depth = 0): boolean {
  if (typeof schema === 'boolean') return true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || depth > 32) return false;
  for (const key in schema) {
    const value = (schema as Record<string, unknown>)[key];
    if (key === 'type') {
      if (
        typeof value === 'string'
          ? !TYPES.has(value)
          : !Array.isArray(value) || value.length === 0 || !unique(value) || !value.every((t) => TYPES.has(t))
      )
        return false;
    } else if (SCHEMA_MAPS.has(key)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      for (const k in value)
        if (!plainlyValid((value as Record<string, unknown>)[k], depth + 1)) return false;
    } else if (key === 'required') {
      if (!Array.isArray(value) || !value.every((r) => typeof r === 'string') || !unique(value)) return false;
    } else if (key === 'items' || key === 'additionalProperties') {
      if (!plainlyValid(value, depth + 1)) return false;
    } else if (key === 'enum') {
      // Unique by value: entries that are objects or arrays would need deep equality, so ajv decides.
      if (!Array.isArray(value) || value.length === 0 || !value.every(isPrimitive) || !unique(value))
        return false;
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      if (!Array.isArray(value) || value.length === 0 || !value.every((v) => plainlyValid(v, depth + 1)))
        return false;
    } else if (key === 'examples') {
      if (!Array.isArray(value)) return false;
    } else if (key === '$id') {
      // 2020-12 allows no fragment but an empty one.
      if (typeof value !== 'string' || !/^[^#]*#?$/.test(value)) return false;
    } else if (TEXT_KEYWORDS.has(key)) {
      if (typeof value !== 'string') return false;
    } else if (NUMBER_KEYWORDS.has(key)) {
      if (typeof value !== 'number') return false;
    } else if (COUNT_KEYWORDS.has(key)) {
      if (!isCount(value)) return false;
    } else if (META_KEYWORDS.has(key) && !FREE_KEYWORDS.has(key)) return false;
  }
  return true;
}

/**
 * Why `schema` is not a valid JSON Schema (the first problem, with its place in the schema),
 * or undefined. A schema for a draft ajv does not know is given the benefit of the doubt.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (plainlyValid(schema)) return undefined;
  const text = JSON.stringify(schema);
  const cached = metaCache.get(text);
  if (cached !== undefined) return cached ?? undefined;
  let problem: string | null = null;
  try {
    const engine = engineFor(schema);
    if (!engine.validateSchema(schema as object)) {
      const first = engine.errors?.[0];
      if (first) {
        const at = formatPath(pointerToSegments(first.instancePath, schema));
        problem = `${at} ${first.message ?? 'is not valid'}`;
      }
    }
  } catch {
    problem = null;
  }
  return remember(metaCache, text, problem) ?? undefined;
}

const validatorCache = new Map<string, ValidateFunction | null>();

function validatorFor(schema: unknown): ValidateFunction | undefined {
  const text = JSON.stringify(schema);
  const cached = validatorCache.get(text);
  if (cached !== undefined) return cached ?? undefined;
  let compiled: ValidateFunction | null = null;
  try {
    // A schema's own `$id` would register it in the shared engine; identity comes from the text.
    const { $id: _id, ...rest } = schema as Record<string, unknown>;
    const engine = engineFor(schema);
    // An invalid schema, or one of a draft ajv does not know, has no validator (as ajv's compile throws).
    if (plainlyValid(rest) || engine.validateSchema(rest)) compiled = engine.compile(rest);
  } catch {
    compiled = null;
  }
  return remember(validatorCache, text, compiled) ?? undefined;
}

/** Where `value` first breaks `schema` (`$.items[0].price must be number`), or undefined when it fits. */
export function valueProblem(schema: unknown, value: unknown): string | undefined {
  if (schema === true || schema === undefined || schema === null) return undefined;
  const validate = validatorFor(schema);
  if (!validate || validate(value)) return undefined;
  const first = validate.errors?.[0];
  if (!first) return 'does not fit the schema';
  const at = formatPath(pointerToSegments(first.instancePath, value));
  const detail =
    first.keyword === 'additionalProperties'
      ? `has the property ${JSON.stringify((first.params as { additionalProperty?: string }).additionalProperty)}, which the schema does not allow`
      : first.keyword === 'enum'
        ? `must be one of ${JSON.stringify((first.params as { allowedValues?: unknown[] }).allowedValues)}`
        : (first.message ?? 'does not fit the schema');
  return `${at} ${detail}`;
}
