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
