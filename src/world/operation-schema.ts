/**
 * Validators for world operations' own input and output schemas, by schema text. A world is
 * loaded by every test file that names it, so under the environment the host compiles each
 * schema once per worker (src/host-services.ts); without it, once per test file here.
 */
import type { default as Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../ajv';
import { hostServices } from '../host-services';

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Compiles a schema given as JSON text in this realm; throws what ajv throws for a bad schema. */
export function compileOperationSchemaHere(schemaJson: string): ValidateFunction {
  // No draft-07 meta-schema check (compiling the meta-schema costs ~80 ms); ajv still refuses
  // what it cannot compile (a bad type, a bad pattern, a dangling $ref).
  ajv ??= createAjv({ allErrors: true, strict: false, allowUnionTypes: true, validateSchema: false });
  return ajv.compile(JSON.parse(schemaJson));
}

/** The validator of an operation's schema: the host's when there is one, else compiled here. */
export function operationValidator(schema: object | boolean): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate =
      (hostServices()?.operationSchema?.(key) as ValidateFunction | undefined) ??
      compileOperationSchemaHere(key);
    compiled.set(key, validate);
  }
  return validate;
}
