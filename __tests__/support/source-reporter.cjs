// The repository's reporter from source for child Jest runs: Jest loads reporters with Node's own
// loader (no transform), and Node's type stripping needs file extensions the sources leave out,
// so the .ts files are compiled on require by esbuild-register.
require('esbuild-register/dist/node').register({ target: 'node20', format: 'cjs' });

module.exports = require('../../src/reporter/index.ts').default;
