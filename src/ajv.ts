import type { default as AjvClass, Options } from 'ajv';

/**
 * A new ajv instance, with ajv itself required on first use: the package is loaded into
 * every test file that imports jest-understudy, and evaluating ajv costs each of them.
 */
export function createAjv(options: Options): AjvClass {
  const Ajv = (require('ajv') as typeof import('ajv')).default;
  return new Ajv(options);
}
