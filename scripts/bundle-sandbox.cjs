#!/usr/bin/env node
/**
 * Bundles what a test file loads inside Jest's sandbox (the package entry, the matchers, the Jest
 * and Vitest adapters' sandbox sides) into one file, dist/sandbox.cjs, and points those entry
 * points of dist/ at it. Part of `npm run build`, after tsc (whose .d.ts files stay as they are).
 *
 * Why: Jest gives every test file its own module registry, so each file loads the package again;
 * one file instead of a hundred modules saves each test file the resolution, reading and wrapping
 * of every module. Modules the code requires lazily stay lazy in the bundle (esbuild initialises a
 * module on its first require), so a file still pays only for what it uses.
 *
 * The bundle starts with the prologue of ./sandbox-prologue.cjs: the built-ins it names become
 * locals, which Jest's sandbox global would otherwise make slow to look up.
 *
 * Modules found by their path on disk (the standalone recorder spawns its main module as a file)
 * stay outside the bundle, as tsc built them.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const esbuild = require('esbuild');
const { writeAscii } = require('./bundle-ascii.cjs');
const { withPrologue } = require('./sandbox-prologue.cjs');

const root = resolve(__dirname, '..');
const dist = join(root, 'dist');
const BUNDLE = join(dist, 'sandbox.cjs');
const LOADER = join(dist, 'sandbox-loader.js');

/** The entry points a test file's sandbox loads, as `dist/` path (tsc output) → source. */
const ENTRIES = {
  index: ['src/index.js', 'src/index.ts'],
  matchers: ['matchers/index.js', 'matchers/index.ts'],
  // What the preset's setup file loads on the file's first use of jest-understudy.
  jestRuntime: ['environment/jest/runtime.js', 'environment/jest/runtime.ts'],
  // The Vitest session's runtime and matchers: the test file's copies, as it shares its realm.
  realm: ['environment/vitest/realm.js', 'environment/vitest/realm.ts'],
};
/**
 * The preset's setup file, which every test file runs: a small bundle of its own that names the
 * matchers and loads the sandbox bundle (its `./runtime`) on first use.
 */
const SETUP = ['environment/jest/setup.ts', 'environment/jest/setup.js'];
/** Sources that must stay files of their own in dist/ (resolved by path at run time). */
const UNBUNDLED = ['src/record/standalone.ts'];

/** The bundle's entry: a getter per entry point, each requiring its source (initialised on first use). */
const entrySourceOf = (entries) =>
  Object.entries(entries)
    .map(
      ([name, [, source]]) =>
        `  get ${name}() {\n    return require(${JSON.stringify(join(root, source))});\n  },`,
    )
    .join('\n');

/** An esbuild plugin that leaves `sources` out of a bundle in dist/, pointing at tsc's output of each. */
const keptOut = (sources) => ({
  name: 'kept-out',
  setup(build) {
    const paths = new Set(sources.map((p) => join(root, p)));
    build.onResolve({ filter: /^\./ }, (args) => {
      const target = join(args.resolveDir, args.path);
      const source = [target, `${target}.ts`].find((p) => paths.has(p));
      if (!source) return undefined;
      // The bundle sits in dist/: point at tsc's output of that source from there.
      const built = relative(dist, join(dist, relative(root, source))).replace(/\.ts$/, '.js');
      return { path: `./${built}`, external: true };
    });
  },
});

/** What the sandbox bundle and the setup file are built with: CommonJS for Node, packages left to `require`. */
const BUILD = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  legalComments: 'none',
  charset: 'ascii',
};

async function main() {
  await esbuild.build({
    ...BUILD,
    stdin: {
      contents: `module.exports = {\n${entrySourceOf(ENTRIES)}\n};\n`,
      resolveDir: root,
      sourcefile: 'sandbox-entry.js',
      loader: 'js',
    },
    outfile: BUNDLE,
    plugins: [keptOut(UNBUNDLED)],
  });
  // The built-ins the sandbox code names, as locals of the bundle (see ./sandbox-prologue.cjs).
  writeFileSync(BUNDLE, withPrologue(readFileSync(BUNDLE, 'utf8')));
  writeAscii(BUNDLE);
  // The entries load the bundle through a loader: under the Jest environment the worker runs the
  // bundle from a script compiled once (environment/sandbox-bundle.ts, `runBundle` of the host
  // services); anywhere else it is required as a module.
  writeFileSync(
    LOADER,
    `"use strict";\n// Built by scripts/bundle-sandbox.cjs: loads the sandbox bundle, from the worker's compiled copy when the environment has one.\n` +
      `const bundle = require("node:path").join(__dirname, "sandbox.cjs");\n` +
      `const services = globalThis[Symbol.for("jest-understudy.host-services")];\n` +
      // Not `module.exports = require(...)`: Node's ES module loader reads that as a re-export and
      // parses the whole bundle for export names (a test file's `import ... from 'jest-understudy'`).
      `if (!services?.runBundle?.(bundle, module, require)) {\n  const loaded = require("./sandbox.cjs");\n  module.exports = loaded;\n}\n`,
  );
  await esbuild.build({
    ...BUILD,
    entryPoints: [join(root, SETUP[0])],
    outfile: join(dist, SETUP[1]),
    allowOverwrite: true,
    banner: {
      js: "// Built by scripts/bundle-sandbox.cjs: the preset's setup file; the sandbox bundle loads on first use (./runtime.js).",
    },
    plugins: [
      {
        name: 'runtime-kept-out',
        setup(build) {
          build.onResolve({ filter: /^\.\/runtime$/ }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  writeAscii(join(dist, SETUP[1]));
  for (const [name, [built]] of Object.entries(ENTRIES)) {
    const file = join(dist, built);
    const to = relative(dirname(file), LOADER);
    writeFileSync(
      file,
      `"use strict";\n// Built by scripts/bundle-sandbox.cjs: the sandbox side of the package is one file.\n` +
        `const loader = require(${JSON.stringify(to.startsWith('.') ? to : `./${to}`)});\nmodule.exports = loader.${name};\n`,
    );
  }
}

module.exports = { ENTRIES, SETUP, UNBUNDLED, entrySourceOf, keptOut };
if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  });
