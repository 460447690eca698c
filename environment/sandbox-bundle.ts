/**
 * The package's sandbox side is one file, dist/sandbox.cjs (scripts/bundle-sandbox.cjs), that every
 * test file loads into its own realm. Loaded as a module, Jest reads it (about 1 MB), decodes it
 * and compiles it again for each test file. Here the worker compiles it once and runs that script
 * in each file's realm: the module is evaluated per file as before (its objects are the file's),
 * only the reading and compiling are shared.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import vm from 'node:vm';

interface Compiled {
  script: vm.Script;
  /** The file's modification time when it was read: a package rebuilt under a watch run is read again. */
  mtimeMs: number;
}

const compiled = new Map<string, Compiled>();

function scriptOf(file: string): vm.Script {
  const { mtimeMs } = statSync(file);
  const known = compiled.get(file);
  if (known && known.mtimeMs === mtimeMs) return known.script;
  // The CommonJS wrapper on the bundle's first line: its line numbers stay those of the file.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
  const script = new vm.Script(source, { filename: file });
  compiled.set(file, { script, mtimeMs });
  return script;
}

/** Runs the bundle `file` in `realm` as `module` (its exports filled), with the file's `require`. */
export function runBundle(
  realm: vm.Context,
  file: string,
  module: { exports: unknown },
  require: (id: string) => unknown,
): boolean {
  const wrapper = scriptOf(file).runInContext(realm) as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file));
  return true;
}
