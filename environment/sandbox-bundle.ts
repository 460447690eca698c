/**
 * Runs the package's bundles: the sandbox side, dist/sandbox.cjs (scripts/bundle-sandbox.cjs), that
 * every test file loads into its own realm, and the host side, dist/host.cjs (./host-bundle.ts), once
 * per worker. Loaded as a module, Jest reads the sandbox bundle (about 1 MB), decodes it and compiles
 * it again for each test file. Here the worker compiles it once and runs that script in each file's
 * realm: the module is evaluated per file as before (its objects are the file's), only the reading
 * and compiling are shared. A runner that runs the test file in the worker's own realm (Vitest) runs
 * it there. Either way the compile itself comes from V8's code cache when an earlier process left
 * one (./code-cache.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type vm from 'node:vm';
import { type CachedScript, compileCached } from './code-cache';

interface Compiled extends CachedScript {
  /** The file's modification time when it was read: a package rebuilt under a watch run is read again. */
  mtimeMs: number;
}

const compiled = new Map<string, Compiled>();

function compiledOf(file: string): Compiled {
  const { mtimeMs } = statSync(file);
  const known = compiled.get(file);
  if (known && known.mtimeMs === mtimeMs) return known;
  // The CommonJS wrapper on the bundle's first line: its line numbers stay those of the file.
  const source = [
    '(function (exports, require, module, __filename, __dirname) {',
    readFileSync(file),
    '\n})',
  ];
  const made = { ...compileCached(file, source), mtimeMs };
  compiled.set(file, made);
  return made;
}

/**
 * Runs the bundle `file` as `module` (its exports filled), with the file's `require`: in `realm`,
 * or in the worker's own realm when none is given.
 */
export function runBundle(
  realm: vm.Context | undefined,
  file: string,
  module: { exports: unknown },
  require: (id: string) => unknown,
): boolean {
  const { script } = compiledOf(file);
  const wrapper = (realm ? script.runInContext(realm) : script.runInThisContext()) as (
    ...args: unknown[]
  ) => void;
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file));
  return true;
}
