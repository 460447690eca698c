/**
 * Reading world files: JSON or YAML, validated with ajv against THE world schema, then
 * checked for dangling references and compiled (see compile/). Problems are worded by
 * src/file-format (file, line, JSON path, suggestion) and thrown together as
 * one WorldFileError. All or nothing: a world with any problem is not loaded at all.
 */
import { dirname, resolve } from 'node:path';
import { formatOf, isDirectory } from '../file-format/format';
import { findingsFromAjv, toIssues } from '../file-format/issues';
import { formatPath } from '../file-format/json-path';
import { createLocator, type Locator } from '../file-format/locate';
import { parseText } from '../file-format/parse';
import { readText } from '../file-format/read';
import { schemaValidator } from '../validators';
import { checkSetup, checkWorld, compileWorld, type SetupShape } from './compile';
import { worldDialect } from './dialect';
import { WorldFileError, type WorldIssue } from './errors';
import type { Finding, WorldDefinition } from './model';
import type { WorldFile } from './types';

// Built only where the worker does not serve the precompiled validators.
const worldSchema = (): object => (require('./world.schema') as typeof import('./world.schema')).worldSchema;

function toWorldIssues(
  findings: readonly Finding[],
  file: string,
  locate: Locator | undefined,
): WorldIssue[] {
  const issues = findings.map((finding) => {
    const position = locate?.(finding.segments);
    return {
      code: finding.code,
      file,
      path: formatPath(finding.segments),
      ...(position && { line: position.line, column: position.column }),
      message: finding.message,
      ...(finding.suggestion && { suggestion: finding.suggestion }),
    };
  });
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** Validates and compiles world data (already parsed). Throws WorldFileError listing every problem. */
export function compileWorldData(
  data: unknown,
  options: { file?: string; source?: string; dir?: string } = {},
): WorldDefinition {
  const label = options.file ?? '<world>';
  // Only a file with problems needs line numbers (reading the source's events costs ms).
  const locate = () => (options.source === undefined ? undefined : createLocator(options.source));
  const validate = schemaValidator('world', worldSchema, 'validateWorld');
  if (!validate(data)) {
    const findings = findingsFromAjv(validate.errors ?? [], data, worldDialect);
    throw new WorldFileError(toIssues(findings, label, locate(), 'WORLD_INVALID'));
  }
  const result = compileWorld(data as WorldFile, {
    ...(options.file !== undefined && { file: options.file }),
    dir: options.dir ?? (options.file ? dirname(options.file) : process.cwd()),
  });
  if ('findings' in result) throw new WorldFileError(toWorldIssues(result.findings, label, locate()));
  return result.definition;
}

/** Reads and parses a world file; every problem as an issue. */
function readWorldFile(
  path: string,
): { file: string; text: string; data: unknown } | { issues: WorldIssue[] } {
  const file = resolve(path);
  const format = isDirectory(file)
    ? { format: 'yaml' as const }
    : formatOf(file, 'WORLD_UNSUPPORTED_EXTENSION', 'world files end in .yaml, .yml or .json');
  if ('issue' in format) return { issues: [format.issue] };
  const read = readText(file, path, 'WORLD_READ_ERROR');
  if ('issue' in read) return { issues: [read.issue] };
  const { text } = read;
  const parsed = parseText(text, format.format, file, {
    code: 'WORLD_PARSE_ERROR',
    empty: 'a world file declares at least "packages"',
  });
  if ('issue' in parsed) return { issues: [parsed.issue] };
  return { file, text, data: parsed.data };
}

/**
 * Loads a world file (`.yaml`, `.yml` or `.json`). A relative path is relative to
 * `process.cwd()` (the `world` option and the `@understudy-world` pragma resolve theirs
 * against the Jest rootDir and the test file).
 *
 * @throws WorldFileError naming the file, line and JSON path of every problem.
 */
export function loadWorldFile(path: string): WorldDefinition {
  const read = readWorldFile(path);
  if ('issues' in read) throw new WorldFileError(read.issues);
  return compileWorldData(read.data, { file: read.file, source: read.text });
}

/**
 * Checks a world file as `loadWorldFile` does, except that its behavior modules are not
 * loaded (their paths are resolved): nothing of the user's code runs. For `understudy validate`.
 */
export function checkWorldFile(path: string): { issues: WorldIssue[] } | { packages: number } {
  const read = readWorldFile(path);
  if ('issues' in read) return read;
  const locate = () => createLocator(read.text);
  const validate = schemaValidator('world', worldSchema, 'validateWorld');
  if (!validate(read.data)) {
    const findings = findingsFromAjv(validate.errors ?? [], read.data, worldDialect);
    return { issues: toIssues(findings, read.file, locate(), 'WORLD_INVALID') };
  }
  const findings = checkWorld(read.data as WorldFile, { dir: dirname(read.file) });
  if (findings.length > 0) return { issues: toWorldIssues(findings, read.file, locate()) };
  return { packages: (read.data as WorldFile).packages.length };
}

/** Validates a drill's per-test setup against the schema and the loaded world; `label` names it in errors. */
export function checkSetupData(
  definition: WorldDefinition,
  setup: unknown,
  label = 'runDrills({ setup })',
): SetupShape {
  const validate = schemaValidator('world', worldSchema, 'validateSetup');
  if (!validate(setup)) {
    const findings = findingsFromAjv(validate.errors ?? [], setup, worldDialect);
    throw new WorldFileError(toIssues(findings, label, undefined, 'WORLD_INVALID'), label);
  }
  const findings = checkSetup(definition, setup as SetupShape);
  if (findings.length > 0) throw new WorldFileError(toWorldIssues(findings, label, undefined), label);
  return setup as SetupShape;
}
