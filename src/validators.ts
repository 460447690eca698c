/**
 * THE validators of the file formats' schemas, once per realm (each test file has its own
 * module registry): the precompiled ajv code in schemas/<name>.validate.cjs when it was made
 * from this very schema, else compiled here on first use (see precompile.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { createAjv } from './ajv';
import { hostServices, loadFile } from './host-services';
import { AJV_OPTIONS, PRECOMPILED, type PrecompiledName, schemaHash } from './precompile';

export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

type Exports<Name extends PrecompiledName> = keyof (typeof PRECOMPILED)[Name];

const cache = new Map<string, Record<string, Validator>>();

/** schemas/, beside src/ in the repository and beside dist/ in the package. */
function precompiled(name: PrecompiledName, schema: object): Record<string, Validator> | undefined {
  const hash = schemaHash(schema);
  for (const up of ['..', '../..']) {
    const file = join(__dirname, up, 'schemas', `${name}.validate.cjs`);
    if (!existsSync(file)) continue;
    const mod = loadFile(file) as Record<string, Validator> & { schemaHash?: unknown };
    // Made from another version of the schema (scripts/write-schemas.mjs regenerates it): compile instead.
    if (mod.schemaHash === hash) return mod;
  }
  return undefined;
}

function compiled(name: PrecompiledName, schema: object): Record<string, Validator> {
  // No meta-schema check: the schemas are ours, and a test compiles each with a strict ajv.
  const ajv = createAjv({ ...AJV_OPTIONS, validateSchema: false });
  ajv.addSchema(schema, name);
  const out: Record<string, Validator> = {};
  for (const [exportName, pointer] of Object.entries(PRECOMPILED[name])) {
    let validate: Validator | undefined;
    // Compiled when first called: drills need the setup validator, most files never do.
    Object.defineProperty(out, exportName, {
      enumerable: true,
      get: () => {
        validate ??= pointer === '' ? ajv.getSchema(name)! : ajv.compile({ $ref: `${name}#${pointer}` });
        return validate;
      },
    });
  }
  return out;
}

/**
 * The validator `exportName` of the schema `name` (e.g. `schemaValidator('world', worldSchema, 'validateSetup')`).
 * `schema` may be a function that builds it: then it is built only when the worker does not serve the validator.
 */
export function schemaValidator<Name extends PrecompiledName>(
  name: Name,
  schema: object | (() => object),
  exportName: Exports<Name>,
): Validator {
  let validators = cache.get(name);
  if (!validators) {
    const served = hostServices()?.validator(name, exportName as string);
    if (served) return served as Validator;
    const built = typeof schema === 'function' ? (schema as () => object)() : schema;
    validators = precompiled(name, built) ?? compiled(name, built);
    cache.set(name, validators);
  }
  return validators[exportName as string];
}
