/**
 * Behavior modules are loaded with the test file's own `require`: this module is itself
 * loaded by Jest's module registry in the test realm, so `require` here is Jest's. A
 * TypeScript behavior module therefore goes through the project's Jest transform,
 * `jest.mock` applies to what it imports, and it lives in the test file's registry
 * (reset with it). Nothing is loaded with Node's own loader.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Handler } from './behaviors';

/** Resolves a module path (relative to `dir`) as Jest would, extensions included. */
export function resolveModule(path: string, dir: string): { file: string } | { error: string } {
  const abs = isAbsolute(path) ? path : resolve(dir, path);
  try {
    return { file: require.resolve(abs) };
  } catch {
    return { error: `${abs} does not exist (or is not a module Jest can resolve)` };
  }
}

export function requireModule(file: string): { exports: unknown } | { error: string } {
  try {
    return { exports: require(file) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: `loading it threw: ${message.split('\n')[0]}` };
  }
}

/** The handler among the module's exports: the first candidate name that is a function. */
export function handlerOf(
  exports: unknown,
  candidates: readonly string[],
): { handler: Handler; exportName: string } | { error: string; names: string[] } {
  const mod = exports as Record<string, unknown> | ((...args: unknown[]) => unknown) | null;
  const inner = (mod as { default?: unknown } | null)?.default;
  for (const name of candidates) {
    const direct = mod && (mod as Record<string, unknown>)[name];
    if (typeof direct === 'function') return { handler: direct as Handler, exportName: name };
    if (name === 'default' && typeof mod === 'function') return { handler: mod as Handler, exportName: name };
    const nested = inner && typeof inner === 'object' ? (inner as Record<string, unknown>)[name] : undefined;
    if (typeof nested === 'function') return { handler: nested as Handler, exportName: name };
  }
  const names =
    mod && typeof mod === 'object'
      ? Object.keys(mod).filter((key) => typeof (mod as Record<string, unknown>)[key] === 'function')
      : [];
  return { error: `has no handler ${candidates.map((c) => JSON.stringify(c)).join(' or ')}`, names };
}
