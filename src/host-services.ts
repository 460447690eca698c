/**
 * Work the environment does for the sandbox in the host realm, once per Jest worker: reading
 * file formats (JSON/YAML with their limits) and the schema validators. Jest gives every test
 * file a fresh module registry, so in the sandbox that work would load js-yaml and the
 * precompiled validators again for each file, and run them cold; on the host they are loaded
 * once and stay warm, and a file read by several test files is parsed once.
 *
 * Only strings cross back (JSON text the sandbox parses into its own objects), and validators,
 * which only read the sandbox's data: nothing a test sees is built in the host realm.
 */
import { createRequire } from 'node:module';

export const HOST_SERVICES = Symbol.for('jest-understudy.host-services');

/** What parsing a file's text gave: the data or the parse issue, each as JSON text. */
export type ParsedText = { json: string } | { issue: string };

/** A schema validator, as ajv's standalone code makes them. */
export type HostValidator = ((data: unknown) => boolean) & { errors?: unknown[] | null };

export interface HostServices {
  /**
   * `parseText(...)` done on the host (see src/file-format/parse.ts); undefined when the data
   * cannot travel as JSON (a YAML `.inf`), so the sandbox parses it itself.
   */
  parseText(
    text: string,
    format: 'json' | 'yaml',
    file: string,
    options: { code: string; empty?: string },
  ): ParsedText | undefined;
  /** The validator `exportName` of the schema `name`, or undefined to compile it in the sandbox. */
  validator(name: string, exportName: string): HostValidator | undefined;
  /**
   * The validator of a world operation's own schema (its JSON text), compiled once per worker;
   * throws what ajv throws for a schema it cannot compile.
   */
  operationSchema?(schemaJson: string): HostValidator;
  /**
   * Runs the package's sandbox bundle (`file`, dist/sandbox.cjs) in this test file's realm as the
   * module `module`, from a script the worker compiled once; false when it cannot, and the file
   * then loads the bundle as any module.
   */
  runBundle?(file: string, module: { exports: unknown }, require: (id: string) => unknown): boolean;
}

/** The environment's services for this test file, when it runs under the environment. */
export function hostServices(): HostServices | undefined {
  return (globalThis as Record<symbol, HostServices | undefined>)[HOST_SERVICES];
}

/** Runs a file; set by the environment's host side to compile it from V8's code cache. */
let runFile: ((file: string) => unknown) | undefined;

/**
 * Has the large CommonJS files the package runs as they are (its precompiled validators, js-yaml)
 * loaded with `run`, the environment's runner of its bundles, which keeps their compiled code
 * between processes, instead of `require`, which compiles them again in every worker (a Vitest
 * worker is a process per test file).
 */
export function runFilesWith(run: (file: string) => unknown): void {
  runFile = run;
}

/** The exports of the CommonJS file at the absolute path `file`, run anew (callers keep them). */
export function loadFile(file: string): unknown {
  if (runFile) return runFile(file);
  // A test file in the worker's own realm (Vitest) runs it as the bundles run, from the code cache.
  const module = { exports: {} as unknown };
  if (hostServices()?.runBundle?.(file, module, createRequire(file))) return module.exports;
  return require(file);
}
