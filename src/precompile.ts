/**
 * Every file format's schema validators (fixtures, worlds, golden tasks, the options) as
 * ajv standalone code: compiling a schema inside a Jest sandbox costs tens to hundreds of
 * milliseconds per test file, loading precompiled code a few. scripts/write-schemas.mjs
 * writes `schemas/<name>.validate.cjs` (shipped with the package), a test keeps each in sync,
 * and src/validators.ts falls back to compiling at run time when a file is missing or was
 * made from another schema (see `schemaHash`).
 *
 * No ajv here, and only package imports: scripts/write-schemas.mjs loads this file with
 * Node's type stripping. The generator is in precompile-code.ts.
 */
import { createHash } from 'node:crypto';

/** The options every schema validator is compiled with (here and at run time). */
export const AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  allowUnionTypes: true,
  strict: true,
  strictRequired: false,
} as const;

export function schemaHash(schema: unknown): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(schema)).digest('hex')}`;
}

/**
 * Which validators each precompiled file exports: export name → JSON Pointer into the
 * schema ('' for the whole document).
 */
export const PRECOMPILED = {
  fixtures: { validateFixtures: '' },
  golden: { validateGolden: '' },
  history: { validateHistory: '' },
  'live-report': { validateLiveReport: '' },
  options: { validateOptions: '' },
  world: { validateWorld: '', validateSetup: '/definitions/setup' },
} as const satisfies Record<string, Record<string, string>>;

export type PrecompiledName = keyof typeof PRECOMPILED;
