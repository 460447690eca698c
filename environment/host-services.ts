/**
 * The host side of src/host-services.ts: one set of services per Jest worker, handed to every
 * test file's sandbox. Parsed files are kept by their text, so a fixture, world or cassette file
 * that many test files load is read once per worker; each file still gets its own copy (the
 * sandbox parses the JSON text into its own objects), so nothing mutable is shared.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type vm from 'node:vm';
import { parseHere } from '../src/file-format/parse';
import { fixturesSchema } from '../src/fixtures/fixtures.schema';
import { goldenSchema } from '../src/golden/golden.schema';
import { type HostServices, type HostValidator, type ParsedText, runFilesWith } from '../src/host-services';
import type { PrecompiledName } from '../src/precompile';
import { schemaValidator } from '../src/validators';
import { compileOperationSchemaHere } from '../src/world/operation-schema';
import { worldSchema } from '../src/world/world.schema';
import { optionsSchema } from './options.schema';
import { runBundle } from './sandbox-bundle';

// The validators and js-yaml of the host's copy of src/ run from V8's code cache, as the bundles do:
// each worker would otherwise compile their files (hundreds of KB), and again on the first call.
runFilesWith((file) => {
  const module = { exports: {} as unknown };
  runBundle(undefined, file, module, createRequire(file));
  return module.exports;
});

// The formats a test file reads (the history file is the reporter's, on the host already).
const SCHEMAS: Partial<Record<PrecompiledName, object>> = {
  fixtures: fixturesSchema,
  golden: goldenSchema,
  options: optionsSchema,
  world: worldSchema,
};

/** Parsed texts kept per worker, oldest dropped first. */
const CACHE_ENTRIES = 256;

/** Whether parsed data survives JSON: YAML can hold `.inf` and `.nan`, which JSON cannot. */
function jsonSafe(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (value === null || typeof value !== 'object') return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (!jsonSafe(item)) return false;
  return true;
}

/** Compiled operation schemas kept per worker, oldest dropped first. */
const SCHEMA_ENTRIES = 1024;

/** Told of each file a test file parsed, with a digest of its text. */
export type ReadNote = (file: string, digest: string) => void;

interface WorkerServices extends HostServices {
  parseNoted(...args: [...Parameters<HostServices['parseText']>, ReadNote]): ParsedText | undefined;
}

function createServices(): WorkerServices {
  const parsed = new Map<string, ParsedText | undefined>();
  const operationSchemas = new Map<string, HostValidator>();
  return {
    parseText(text, format, file, options) {
      return this.parseNoted(text, format, file, options, () => undefined);
    },
    parseNoted(text, format, file, options, note) {
      const digest = createHash('sha1').update(text).digest('base64');
      note(file, digest);
      const key = `${format}\0${options.code}\0${options.empty ?? ''}\0${file}\0${digest}`;
      if (parsed.has(key)) return parsed.get(key);
      const result = parseHere(text, format, file, options);
      const served: ParsedText | undefined =
        'issue' in result
          ? { issue: JSON.stringify(result.issue) }
          : jsonSafe(result.data)
            ? { json: JSON.stringify(result.data) }
            : undefined;
      if (parsed.size >= CACHE_ENTRIES) parsed.delete(parsed.keys().next().value as string);
      parsed.set(key, served);
      return served;
    },
    validator(name, exportName) {
      const schema = SCHEMAS[name as PrecompiledName];
      if (!schema) return undefined;
      return schemaValidator(name as PrecompiledName, schema, exportName as never) as
        | HostValidator
        | undefined;
    },
    operationSchema(schemaJson) {
      let validate = operationSchemas.get(schemaJson);
      if (!validate) {
        validate = compileOperationSchemaHere(schemaJson) as HostValidator;
        if (operationSchemas.size >= SCHEMA_ENTRIES)
          operationSchemas.delete(operationSchemas.keys().next().value as string);
        operationSchemas.set(schemaJson, validate);
      }
      return validate;
    },
  };
}

let services: WorkerServices | undefined;

/**
 * This worker's services (created on first use), as one test file gets them: `noteRead` hears
 * of every file it parses (a fixture, world, golden or cassette file), for the key its history
 * is kept under.
 */
export function hostServicesForWorker(
  noteRead: ReadNote = () => undefined,
  { sameRealm = false, realm }: { sameRealm?: boolean; realm?: vm.Context } = {},
): HostServices {
  services ??= createServices();
  const shared = services;
  return {
    ...((realm || sameRealm) && {
      runBundle: (file, module, require) => runBundle(realm, file, module, require),
    }),
    parseText: (text, format, file, options) => shared.parseNoted(text, format, file, options, noteRead),
    // A test file in the worker's own realm (Vitest) shares the validators' module: it compiles
    // each once per worker already, and asking here would ask itself.
    validator: (name, exportName) => (sameRealm ? undefined : shared.validator(name, exportName)),
    operationSchema: (schemaJson) => shared.operationSchema!(schemaJson),
  };
}
