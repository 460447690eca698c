/**
 * Code that runs in Jest's sandbox pays for every global it names: the sandbox's global object
 * is a vm context (and in Jest 30 a Proxy behind it), so each lookup of `JSON`, `Object`,
 * `Array`… goes through the context's interceptors instead of an inline cache, about 0.5 µs a
 * time against a few ns for a local. The package's sandbox code therefore starts with one line
 * that copies the built-ins it uses into locals of its module scope: dist/sandbox.cjs (see
 * ./bundle-sandbox.cjs) and, in this repository's own tests, every source file that runs in
 * the sandbox (./jest-transform.cjs).
 *
 * Only globals nothing replaces once the sandbox is set up: the language's built-ins, and what
 * Jest's environment installs before any module loads. Timers, `Date` and `performance` (fake
 * timers swap them), `fetch` and its classes (msw and the environment patch them), `process` and
 * `console` stay lookups.
 */
const NAMES = [
  'Array',
  'ArrayBuffer',
  'BigInt',
  'Boolean',
  'Buffer',
  'Error',
  'JSON',
  'Map',
  'Math',
  'Number',
  'Object',
  'Promise',
  'RangeError',
  'Reflect',
  'RegExp',
  'Set',
  'String',
  'Symbol',
  'SyntaxError',
  'TextDecoder',
  'TextEncoder',
  'TypeError',
  'Uint8Array',
  'URL',
  'WeakMap',
  'WeakRef',
  'WeakSet',
  'decodeURIComponent',
  'encodeURIComponent',
  'isFinite',
  'parseInt',
];

const PROLOGUE = `var ${NAMES.map((name) => `${name} = globalThis.${name}`).join(', ')};`;

/**
 * `code` (a CommonJS module or bundle) with the prologue on its first line, after its
 * "use strict" directive (which must stay first): no line moves, so source maps still fit.
 */
function withPrologue(code) {
  const directive = /^(?:#![^\n]*\n)?\s*(?:(["'])use strict\1;?)?/.exec(code)[0];
  return `${directive}${PROLOGUE}${code.slice(directive.length)}`;
}

module.exports = { NAMES, PROLOGUE, withPrologue };
