/**
 * The rewrite of the sandbox bundle's lazy modules (scripts/defer-module-setup.cjs): evaluating the
 * installed bundle in a new realm defines no module's exports until something requires it, and a
 * bundle rewritten that way behaves as esbuild built it: modules initialise on first require, in
 * the same order, once, strict where they were, circular imports included; a bundle of another
 * shape fails the build instead of being half rewritten.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { afterAll, describe, expect, it } from '@jest/globals';
import { buildSync } from 'esbuild';
import { installedProject } from '../../support/installed';

const root = join(__dirname, '..', '..', '..');
const { deferModuleSetup, plainInitFunctions } = require(join(root, 'scripts', 'defer-module-setup.cjs')) as {
  deferModuleSetup(code: string): string;
  plainInitFunctions(code: string): string;
};

/** Evaluates CommonJS `code` in a new realm; `defined` counts Object.defineProperty calls there. */
function evaluate(code: string, require: (id: string) => unknown = () => ({})) {
  const context = createContext({ console });
  const counter = { defined: 0 };
  runInContext(
    `{ const define = Object.defineProperty; Object.defineProperty = (...a) => (counter.defined++, define(...a)); }`,
    Object.assign(context, { counter }),
  );
  const module = { exports: {} as Record<string, unknown> };
  runInContext(`(function (exports, require, module) {\n${code}\n})`, context)(
    module.exports,
    require,
    module,
  );
  return { exports: module.exports, counter, context };
}

const sources = {
  'entry.js': `module.exports = {
  get a() { return require('./a.ts'); },
  get lazyB() { return () => require('./b.ts'); },
};`,
  // a imports c eagerly, b only when asked; b and c import each other (a cycle).
  'a.ts': `import { c } from './c';
(globalThis as any).order.push('a');
export const a = () => 'a+' + c();
export function loadB() { return (require('./b') as typeof import('./b')).b(); }
export function sloppyThis() { return (function (this: unknown) { return this; })(); }`,
  'b.ts': `import { c, fromB } from './c';
(globalThis as any).order.push('b');
export const b = () => 'b+' + c() + '+' + fromB();
export const named = 'b';`,
  'c.ts': `(globalThis as any).order.push('c');
export const c = () => 'c';
export function fromB() { return (require('./b') as typeof import('./b')).named; }`,
};

describe('scripts/defer-module-setup.cjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'defer-module-setup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(sources)) writeFileSync(join(dir, name), text);
  // As the package's tsconfig: every module strict ("use strict" first in its init function).
  writeFileSync(join(dir, 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }');
  const built = buildSync({
    entryPoints: [join(dir, 'entry.js')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
  }).outputFiles[0].text;

  const run = (code: string) => {
    const { exports, counter, context } = evaluate(code);
    context.order = [];
    const atLoad = counter.defined;
    const entry = exports as { a: Record<string, () => string>; lazyB: () => Record<string, () => string> };
    const a = entry.a;
    const first = [...context.order];
    return {
      atLoad,
      results: [a.a(), a.loadB(), entry.lazyB().b(), a.sloppyThis()],
      first,
      order: [...context.order],
    };
  };

  it('leaves a bundle that does what esbuild built, initialising each module once, on first require', () => {
    const before = run(built);
    const after = run(deferModuleSetup(built));
    expect(after.results).toEqual(before.results);
    expect(after.results.slice(0, 3)).toEqual(['a+c', 'b+c+b', 'b+c+b']);
    // "use strict" stays the first statement of each init function: `this` is undefined in a call.
    expect(after.results[3]).toBeUndefined();
    expect(after.first).toEqual(['c', 'a']);
    expect(after.order).toEqual(['c', 'a', 'b']);
  });

  it('defines no export at load, where esbuild defines every module’s', () => {
    expect(run(built).atLoad).toBeGreaterThan(0);
    expect(run(deferModuleSetup(built)).atLoad).toBe(0);
  });

  it('fails on a bundle of a shape it does not know', () => {
    expect(() =>
      plainInitFunctions(built.replace('(0, fn[__getOwnPropNames(fn)[0]])(fn = 0)', 'fn()')),
    ).toThrow(/esbuild's output changed shape/);
    const unclosed = built.replace(/\n {2}\}\n\}\);\n/g, '\n  };\n});\n');
    expect(() => plainInitFunctions(unclosed)).toThrow(/esbuild's output changed shape/);
  });

  it('reaches the installed bundle: evaluating it defines no export, and the entry then has the API', () => {
    const bundle = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'sandbox.cjs');
    const code = readFileSync(bundle, 'utf8');
    expect(code).not.toMatch(/__esm\(\{/);
    const { exports, counter } = evaluate(code);
    expect(counter.defined).toBe(0);
    expect(Object.keys(exports).sort()).toEqual(['index', 'matchers', 'realm', 'setup']);
  });
});
