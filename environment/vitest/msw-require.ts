/**
 * `msw/node` for Node's own require under Vitest. The plugin's alias (./index.ts) serves the
 * modules Vite resolves, but a CommonJS file (a setup file, a helper, a test written with
 * `require`) loads what it requires through Node, past Vite: there `require('msw/node')` would
 * give msw's own setupServer, whose handlers jest-understudy's network policy never sees. The
 * test file's worker resolves it to jest-understudy's as well, as the preset's moduleNameMapper
 * does under Jest.
 */
import Module from 'node:module';
import { join } from 'node:path';

/** jest-understudy's `msw/node` (src/sandbox/msw-node.ts), built. */
export const MSW_NODE = join(__dirname, '..', '..', 'src', 'sandbox', 'msw-node.js');

type Resolve = (request: string, ...rest: unknown[]) => string;
const ModuleWithResolve = Module as unknown as { _resolveFilename: Resolve };
const SERVED = Symbol.for('jest-understudy.msw-require');

/** Makes Node's require resolve `msw/node` to `target`; returns what undoes it. Once per process. */
export function serveMswToRequire(target: string = MSW_NODE): () => void {
  const resolve = ModuleWithResolve._resolveFilename;
  if ((resolve as unknown as Record<symbol, unknown>)[SERVED]) return () => undefined;
  const served: Resolve = function (this: unknown, request, ...rest) {
    return request === 'msw/node' ? target : resolve.call(this, request, ...rest);
  };
  (served as unknown as Record<symbol, unknown>)[SERVED] = true;
  ModuleWithResolve._resolveFilename = served;
  return () => {
    if (ModuleWithResolve._resolveFilename === served) ModuleWithResolve._resolveFilename = resolve;
  };
}
