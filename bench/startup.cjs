'use strict';
/**
 * Environment start-up per test file, constructed directly as jest-runner does
 * (`new Env({ globalConfig, projectConfig }, { console, docblockPragmas, testPath })`, `setup()`,
 * `teardown()`): jest-environment-node against jest-understudy's environment, without a runtime (a
 * file that never calls a model or tool), and with the per-file runtime created and attached to the
 * bridge after `setup()`, as `getRuntime()` does on a file's first model or tool request.
 * The TypeScript sources are loaded with esbuild-register (no build step).
 *
 *   node bench/startup.cjs <output.json> [warmup] [iterations]
 */
const { writeFileSync } = require('node:fs');
const { resolve } = require('node:path');
const { performance } = require('node:perf_hooks');

require('esbuild-register/dist/node').register({ target: `node${process.versions.node.split('.')[0]}` });

const root = resolve(__dirname, '..');
const { readConfig } = require('jest-config');
const { NullConsole } = require('@jest/console');
const { TestEnvironment: NodeEnvironment } = require('jest-environment-node');
const UnderstudyEnvironment = require('../environment/jest/index.ts').default;
const { BRIDGE_KEY } = require('../src/sandbox/bridge.ts');
const { SandboxRuntime } = require('../src/sandbox/runtime.ts');

const [outputPath, warmupArg, iterationsArg] = process.argv.slice(2);
const warmup = Number(warmupArg ?? 10);
const iterations = Number(iterationsArg ?? 50);
const testPath = resolve(root, 'bench/calls.bench.ts');

async function configFor(testEnvironment) {
  const { globalConfig, projectConfig } = await readConfig(
    { $0: 'jest', _: [] },
    { rootDir: root, testEnvironment },
    true,
    root,
  );
  return { globalConfig, projectConfig };
}

async function main() {
  const configs = {
    node: await configFor('node'),
    understudy: await configFor(resolve(root, 'environment/jest/index.ts')),
  };
  const testConsole = new NullConsole(process.stdout, process.stderr, () => '');

  /** One test file's environment life: construct, set up, (runtime attached), tear down. */
  const lifecycles = {
    node: async () => {
      const env = new NodeEnvironment(configs.node, { console: testConsole, docblockPragmas: {}, testPath });
      await env.setup();
      await env.teardown();
    },
    // What a file that never calls a model or tool pays: the preset's setup file only registers
    // the lazy matchers and the runtime loader, so no runtime is created.
    understudy: async () => {
      const env = new UnderstudyEnvironment(configs.understudy, {
        console: testConsole,
        docblockPragmas: {},
        testPath,
      });
      await env.setup();
      if (!env.global[BRIDGE_KEY]) throw new Error('the environment did not expose its bridge');
      await env.teardown();
    },
    // A file that talks to the model: the runtime is created on first use, as `getRuntime()` does
    // (modules are loaded once here, so this is the construction, not the module loading).
    understudyRuntime: async () => {
      const env = new UnderstudyEnvironment(configs.understudy, {
        console: testConsole,
        docblockPragmas: {},
        testPath,
      });
      await env.setup();
      const bridge = env.global[BRIDGE_KEY];
      if (!bridge) throw new Error('the environment did not expose its bridge');
      bridge.session = new SandboxRuntime(bridge.options, bridge);
      await env.teardown();
    },
  };

  const names = Object.keys(lifecycles);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < warmup; i++) for (const n of names) await lifecycles[n]();
  // Alternate, so all see the same GC pressure from the contexts left behind.
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < names.length; k++) {
      const n = names[(i + k) % names.length];
      const t0 = performance.now();
      await lifecycles[n]();
      samples[n].push(performance.now() - t0);
    }
  }
  writeFileSync(outputPath, JSON.stringify({ warmup, iterations, samples }));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
