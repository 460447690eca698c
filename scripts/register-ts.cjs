/**
 * `node -r scripts/register-ts.cjs <file>.ts`: the repository's TypeScript in a plain node process
 * (the CLI from source, a test's driver script), compiled file by file as the Jest transform
 * compiles it (@swc/core, see ./jest-transform.cjs). The compiler runs in-process: a test suite
 * that starts the CLI some sixty times does not start a compiler service each time.
 */
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

// Stack traces point into the TypeScript, through the inline source maps.
process.setSourceMapsEnabled(true);

Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
