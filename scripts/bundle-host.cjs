#!/usr/bin/env node
/**
 * Bundles the host side a test worker loads — the Jest environment (environment/jest/index.ts) and
 * the Vitest session (environment/vitest/session.ts), with the modules they import — into one
 * file, dist/host.cjs, and points those two entry points of dist/ at it. Part of `npm run build`,
 * after tsc (whose .d.ts files stay as they are) and the sandbox bundle.
 *
 * Why: a Jest worker loads the host side once, a Vitest worker once per test file (a process per
 * file); as seventy modules, each load resolves, reads and wraps every one of them. One file,
 * compiled from V8's code cache when an earlier process left one (environment/code-cache.ts,
 * environment/host-bundle.ts), costs a fraction of that.
 *
 * Modules that read files beside themselves keep their own folder: `__dirname` and `__filename`
 * in a bundled module are those of tsc's output of that module. Modules that must be one instance
 * with what is loaded apart from the bundle stay files of their own (KEPT_OUT).
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const esbuild = require('esbuild');
const { writeAscii } = require('./bundle-ascii.cjs');
const { UNBUNDLED, entrySourceOf, keptOut } = require('./bundle-sandbox.cjs');

const root = resolve(__dirname, '..');
const dist = join(root, 'dist');
const BUNDLE = join(dist, 'host.cjs');

/** The entry points a test worker loads on the host, as `dist/` path (tsc output) → source. */
const HOST_ENTRIES = {
  jestEnvironment: ['environment/jest/index.js', 'environment/jest/index.ts'],
  vitestSession: ['environment/vitest/session.js', 'environment/vitest/session.ts'],
};

/**
 * Sources that stay files of their own: the runtime the test file imports (the sandbox bundle's
 * loader, which the Vitest session shares with the test file), the code cache and the bundle runner
 * (one instance serves the loader of this bundle and the bundle), and what runs as a file by its
 * path. The build fails if anything in the bundle loads an ES module with `import()` (msw, ESM
 * only, is loaded with `require`: environment/msw.ts).
 */
const KEPT_OUT = [
  'environment/vitest/realm.ts',
  'environment/code-cache.ts',
  'environment/sandbox-bundle.ts',
  ...UNBUNDLED,
];

/** The bundle's own folder, taken before any module shadows `__dirname`. */
const BUNDLE_DIR = '__understudyBundleDir';

/** `__dirname` and `__filename` of a bundled module: those of its own file in dist/. */
const ownPaths = {
  name: 'own-paths',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const from = relative(root, args.path);
      if (from.startsWith('..') || from.includes('node_modules')) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const dir = JSON.stringify(dirname(from));
      const file = JSON.stringify(from.replace(/\.ts$/, '.js'));
      // Declared in the module, they shadow the bundle's own (BUNDLE_DIR is the bundle's folder).
      const contents =
        `var __dirname = require("node:path").join(${BUNDLE_DIR}, ${dir});\n` +
        `var __filename = require("node:path").join(${BUNDLE_DIR}, ${file});\n${text}`;
      return { contents, loader: 'ts' };
    });
  },
};

async function main() {
  await esbuild.build({
    stdin: {
      contents: `module.exports = {\n${entrySourceOf(HOST_ENTRIES)}\n};\n`,
      resolveDir: root,
      sourcefile: 'host-entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    outfile: BUNDLE,
    plugins: [keptOut(KEPT_OUT), ownPaths],
    logLevel: 'warning',
    legalComments: 'none',
    charset: 'ascii',
    banner: { js: `var ${BUNDLE_DIR} = __dirname;` },
  });
  writeAscii(BUNDLE);
  // A script compiled from the code cache has no module loader for `import()` (./code-cache.ts).
  const imports = readFileSync(BUNDLE, 'utf8').match(/[^\w.$]import\(/g);
  if (imports) throw new Error(`dist/host.cjs has ${imports.length} import() call(s): keep their module out of the bundle`);
  for (const [name, [built]] of Object.entries(HOST_ENTRIES)) {
    const file = join(dist, built);
    const loader = relative(dirname(file), join(dist, 'environment', 'host-bundle.js'));
    writeFileSync(
      file,
      `"use strict";\n// Built by scripts/bundle-host.cjs: the host side of the package is one file.\n` +
        `const loader = require(${JSON.stringify(loader.startsWith('.') ? loader : `./${loader}`)});\nmodule.exports = loader.loadHostBundle().${name};\n`,
    );
  }
}

module.exports = { HOST_ENTRIES, KEPT_OUT };
if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
