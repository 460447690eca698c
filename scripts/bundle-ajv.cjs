#!/usr/bin/env node
/**
 * Bundles ajv (draft-07 and 2020-12, with the packages it requires) into one file, dist/ajv.cjs,
 * which src/ajv.ts runs through the host services' file runner. Part of `npm run build`.
 *
 * Why: ajv is some forty modules; `require('ajv')` resolves, reads and compiles each of them in every
 * Jest worker that checks a world and in every test file that checks a tool or output schema (in
 * its own module registry), and a Vitest worker does so for each file. One file runs from V8's code
 * cache (environment/code-cache.ts), as the package's bundles do.
 *
 * The file names the version it was made from: src/ajv.ts uses it only when the installed ajv is
 * that very version, and requires the installed one otherwise. Not minified, so ajv's own names
 * (its error classes, its stacks) stay as they are.
 */
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const esbuild = require('esbuild');

const root = resolve(__dirname, '..');
const BUNDLE = join(root, 'dist', 'ajv.cjs');

/** Writes the bundle to `outfile`; fails when it would need a module outside itself. */
async function bundleAjv(outfile = BUNDLE) {
  const { version } = JSON.parse(readFileSync(require.resolve('ajv/package.json', { paths: [root] }), 'utf8'));
  await esbuild.build({
    // Each draft's class is evaluated when first read: a file that checks only draft-07 never runs 2020's.
    stdin: {
      contents:
        `module.exports = {\n  version: ${JSON.stringify(version)},\n` +
        `  get Ajv() {\n    return require("ajv").default;\n  },\n` +
        `  get Ajv2020() {\n    return require("ajv/dist/2020").default;\n  },\n};\n`,
      resolveDir: root,
      sourcefile: 'ajv-entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    legalComments: 'none',
    charset: 'ascii',
  });
  const text = readFileSync(outfile, 'utf8');
  // A script compiled from the code cache has no module loader for `import()` (environment/code-cache.ts),
  // and the file runs in a test file's realm with the host's `require`: it may need built-ins only.
  const imports = text.match(/[^\w.$]import\(/g);
  if (imports) throw new Error(`dist/ajv.cjs has ${imports.length} import() call(s)`);
  // (ajv's own `require("ajv/dist/runtime/…")` strings are code it writes for standalone validators.)
  const requires = [...text.matchAll(/(?<![\w.$"'`])require\("([^"]+)"\)/g)]
    .map((m) => m[1])
    .filter((id) => !id.startsWith('node:'));
  if (requires.length > 0) throw new Error(`dist/ajv.cjs requires modules outside it: ${requires.join(', ')}`);
}

module.exports = { bundleAjv };
if (require.main === module)
  bundleAjv().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
