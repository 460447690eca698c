/**
 * The world schema's validators as ajv standalone code: compiling the world schema inside a
 * Jest sandbox costs hundreds of milliseconds per test file, loading precompiled code a few.
 * scripts/write-schemas.mjs writes the result to schemas/world.validate.cjs (shipped with
 * the package), a test keeps it in sync, and the loader falls back to compiling at run time
 * when the file is missing or was made from another schema (see `schemaHash`).
 *
 * No ajv here: the world loader imports this in every test file. The generator is in
 * precompile-code.ts. Only package imports: scripts/write-schemas.mjs loads this file with
 * Node's type stripping.
 */
import { createHash } from 'node:crypto';

/** The options every world-schema validator is compiled with (here and at run time). */
export const WORLD_AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  allowUnionTypes: true,
  strict: true,
  strictRequired: false,
} as const;

export function schemaHash(schema: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(schema)).digest('hex')}`;
}
