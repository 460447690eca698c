/**
 * Rewrites esbuild's CommonJS bundle so that evaluating it does only what every file needs: each
 * test file evaluates dist/sandbox.cjs in a new realm, and there every object literal the bundle's
 * top level builds gets new hidden classes. Two patterns of esbuild's lazy modules cost most of
 * that top level (about 1 ms of a test file's start-up, of which this leaves a quarter):
 *
 * - `__esm({ "src/x.ts"() { ... } })`: one object per module, each with a key of its own, only to
 *   carry the module's init function. It becomes `__esm(function () { ... })`, and the helper
 *   calls the function it is given.
 * - `__export(x_exports, { a: () => a, ... })`: the getters of a module's exports object, defined
 *   for every module at load even if nothing requires it. The call moves into the module's init
 *   function, which runs before anything reads `x_exports` (esbuild reads it only as
 *   `(init_x(), __toCommonJS(x_exports))`).
 *
 * Every rewrite is checked: a bundle whose shape this does not know fails the build instead of
 * being left half rewritten.
 */

const ESM_HELPER_CALL = '(0, fn[__getOwnPropNames(fn)[0]])(fn = 0)';
const ESM_OPEN = /= __esm\(\{\n {2}"[^"\n]+"\(\) \{\n/g;
const ESM_CLOSE = '\n  }\n});\n';
const EXPORT_BLOCK = /^__export\((\w+), \{\n(?: {2}[\w$]+: \(\) => [\w$]+,?\n)+\}\);\n/gm;
const INIT_OPEN = /^var init_[\w$]+ = __esm\(function\(\) \{\n( {4}"use strict";\n)?/gm;
const MODULE_HEADER = /^\/\/ \S+\n/gm;

function fail(what) {
  throw new Error(`scripts/defer-module-setup.cjs: ${what}; esbuild's output changed shape, update this rewrite`);
}

/** `__esm({ "name"() { body } })` → `__esm(function() { body })`, and the helper to match. */
function plainInitFunctions(code) {
  const helpers = code.split(ESM_HELPER_CALL).length - 1;
  if (helpers !== 1) fail(`expected esbuild's __esm helper once, found it ${helpers} times`);
  const withHelper = code.replace(ESM_HELPER_CALL, 'fn(fn = 0)');
  const calls = withHelper.split('= __esm(').length - 1;
  let out = '';
  let last = 0;
  let rewritten = 0;
  ESM_OPEN.lastIndex = 0;
  for (let m = ESM_OPEN.exec(withHelper); m; m = ESM_OPEN.exec(withHelper)) {
    const end = withHelper.indexOf(ESM_CLOSE, m.index);
    if (end < 0) fail('a lazy module with no end');
    out += `${withHelper.slice(last, m.index)}= __esm(function() {\n${withHelper.slice(m.index + m[0].length, end)}\n});\n`;
    last = end + ESM_CLOSE.length;
    ESM_OPEN.lastIndex = last;
    rewritten++;
  }
  if (rewritten !== calls) fail(`rewrote ${rewritten} of ${calls} lazy modules`);
  return out + withHelper.slice(last);
}

/** Moves each module's `__export(...)` into the start of that module's init function. */
function exportsOnInit(code) {
  const moves = [];
  EXPORT_BLOCK.lastIndex = 0;
  for (let m = EXPORT_BLOCK.exec(code); m; m = EXPORT_BLOCK.exec(code)) {
    const blockEnd = m.index + m[0].length;
    MODULE_HEADER.lastIndex = blockEnd;
    const nextModule = MODULE_HEADER.exec(code)?.index ?? code.length;
    INIT_OPEN.lastIndex = blockEnd;
    const init = INIT_OPEN.exec(code);
    // A module with no init function of its own (none in the sandbox today) keeps its exports at load.
    if (!init || init.index > nextModule) continue;
    moves.push({ start: m.index, end: blockEnd, block: m[0], at: init.index + init[0].length });
  }
  let out = '';
  let last = 0;
  // Blocks and their targets interleave in file order: cut each block, paste it at its target.
  const edits = [
    ...moves.map((m) => ({ at: m.start, end: m.end, text: '' })),
    ...moves.map((m) => ({ at: m.at, end: m.at, text: m.block.replace(/^(?=.)/gm, '    ') })),
  ].sort((a, b) => a.at - b.at);
  for (const edit of edits) {
    out += code.slice(last, edit.at) + edit.text;
    last = edit.end;
  }
  return { code: out + code.slice(last), moved: moves.length };
}

/** The bundle, rewritten (see above). */
function deferModuleSetup(code) {
  return exportsOnInit(plainInitFunctions(code)).code;
}

module.exports = { deferModuleSetup, exportsOnInit, plainInitFunctions };
