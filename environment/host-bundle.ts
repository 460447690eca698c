/**
 * Loads dist/host.cjs, the host side a test worker runs (scripts/bundle-host.cjs), once per
 * process, compiled from V8's code cache when an earlier process left one (./code-cache.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compileCached } from './code-cache';

interface HostBundle {
  jestEnvironment: unknown;
  vitestSession: unknown;
}

let loaded: HostBundle | undefined;

export function loadHostBundle(): HostBundle {
  if (loaded) return loaded;
  const file = join(__dirname, '..', 'host.cjs');
  // The CommonJS wrapper on the bundle's first line: its line numbers stay those of the file.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`;
  const wrapper = compileCached(file, source).script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as HostBundle };
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, join(__dirname, '..'));
  loaded = module.exports;
  return loaded;
}
