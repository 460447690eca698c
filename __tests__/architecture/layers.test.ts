/**
 * The dependency direction of docs/architecture.md, enforced: every import in src/,
 * environment/ and matchers/ points down the layers below (type-only imports
 * included), no file imports itself round a cycle, and the host realm (the environment, the
 * CLI, the reporter) reaches into the sandbox side only through the bridge contract.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  cycles,
  type ImportEdge,
  type LayerRules,
  layerViolations,
  type RunnerRule,
  runnerViolations,
  scanImports,
  scanPackageImports,
  specifiersOf,
  unitGraph,
  unitOf,
} from './imports';

const root = join(__dirname, '..', '..');
const SCANNED = ['src', 'environment', 'matchers'];

/** Bottom first; docs/architecture.md's layer table is the same list (a test compares them). */
const LAYERS: LayerRules['layers'] = [
  [
    'src/errors',
    'src/conversation',
    'src/redact',
    'src/clock',
    'src/random',
    'src/lazy',
    'src/precompile',
    'src/precompile-code',
    'src/fetch-input',
    'src/host-services',
    'src/node-http',
  ],
  ['src/ajv'],
  ['src/file-format', 'src/files', 'src/validators', 'src/trace', 'src/pricing'],
  ['src/fixtures'],
  ['src/providers'],
  ['src/contracts'],
  ['src/model', 'src/world', 'src/options', 'src/nightly'],
  ['src/record', 'src/embeddings', 'src/sockets'],
  ['src/run', 'src/browser'],
  ['src/sandbox'],
  ['matchers'],
  ['src/drills', 'src/golden', 'src/scenario'],
  ['src/sweep'],
  ['src/understudy'],
  ['src/index'],
  ['src/cli', 'src/reporter'],
  ['environment'],
];

const RULES: LayerRules = {
  layers: LAYERS,
  forbidden: [
    {
      // Jest's setup file runs in the test file's realm and creates the runtime there (from
      // ./runtime.ts, on first use); Vitest runs a test file in its worker's own realm, where its
      // session (environment/vitest) does the same.
      from: /^(environment\/(?!vitest\/|jest\/(setup|runtime)\.ts$)|src\/cli\/|src\/reporter\/)/,
      to: /^src\/sandbox\//,
      unless: /^src\/sandbox\/bridge\.ts$/,
      reason:
        'the host realm (environment, CLI, reporter, test runner) must not load the sandbox runtime; it talks to it through src/sandbox/bridge.ts',
    },
    {
      from: /^(src\/cli\/|src\/reporter\/)/,
      to: /^(environment\/|src\/sandbox\/)/,
      reason:
        'the CLI and the reporter are tools on the side: they use the file formats, not a test environment',
    },
  ],
};

/**
 * Runner knowledge lives in the adapters: a runner's own packages are imported only from its
 * folder. Jest's libraries that are not the runner (jest-matcher-utils, jest-diff, jest-snapshot,
 * jest-docblock) are plain dependencies of the package and may be imported anywhere.
 */
const RUNNERS: readonly RunnerRule[] = [
  {
    runner: 'Jest',
    packages:
      /^@jest\/|^(jest|jest-circus|jest-config|jest-runner|jest-runtime|jest-environment-[\w-]+)(\/|$)/,
    adapter: 'environment/jest/',
  },
  { runner: 'Vitest', packages: /^(vitest|vite|@vitest\/[\w-]+)(\/|$)/, adapter: 'environment/vitest/' },
];

/**
 * Inside src/world, bottom first (paths relative to src/world; a trailing `/` is a folder): a
 * file may import files of its own sub-layer or lower ones, never a higher one. The same list
 * is in docs/architecture.md.
 */
const WORLD_LAYERS: ReadonlyArray<readonly string[]> = [
  [
    'types.ts',
    'values.ts',
    'errors.ts',
    'world.schema.ts',
    'dialect.ts',
    'operation-schema.ts',
    'schema-messages.ts',
    'clock.ts',
    'mcp/',
    'workspace/',
  ],
  ['model.ts', 'behaviors.ts', 'modules.ts'],
  ['compile/', 'load.ts'],
  ['engine/', 'criteria.ts'],
  ['door.ts'],
  ['handle.ts'],
  ['transports/'],
  ['host/'],
  ['index.ts'],
];

/** Files of src/world that may be longer than about 400 lines, and why. */
const LONG_WORLD_FILES: Record<string, string> = {
  'world.schema.ts': "the world file's JSON Schema: one declaration a reader follows top to bottom",
};

function worldLayerOf(path: string): number {
  const inside = path.slice('src/world/'.length);
  const index = WORLD_LAYERS.findIndex((layer) =>
    layer.some((unit) => (unit.endsWith('/') ? inside.startsWith(unit) : inside === unit)),
  );
  return index;
}

function worldFiles(dir = 'src/world', out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) worldFiles(path, out);
    else if (/\.ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

function unitsOnDisk(): Set<string> {
  const units = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js|cjs)$/.test(entry.name)) units.add(unitOf(path));
    }
  };
  for (const dir of SCANNED) walk(dir);
  return units;
}

/**
 * The layers of the doc's table (`| Layer | Unit | What it is |`), bottom first: a row that names a
 * layer starts one, a row with an empty first cell adds its unit to the layer above.
 */
function layerTable(doc: string): string[][] {
  const rows = doc.slice(doc.indexOf('| Layer | Unit |')).split('\n');
  const layers: string[][] = [];
  for (const row of rows.slice(2)) {
    if (!row.startsWith('|')) break;
    const [, layer, unit] = row.split('|').map((cell) => cell.trim());
    if (layer) layers.push([]);
    layers[layers.length - 1]?.push(unit.replace(/`/g, ''));
  }
  return layers.map((units) => units.sort());
}

const edges = scanImports(root, SCANNED);
const packageImports = scanPackageImports(root, SCANNED);

describe('the layers of docs/architecture.md', () => {
  it('every import points down the layers (type-only imports count)', () => {
    expect(layerViolations(edges, RULES)).toEqual([]);
  });

  it('no import cycles between files', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('every folder of the package is in a layer, and every layer names a folder that exists', () => {
    const listed = new Set(LAYERS.flat());
    const found = unitsOnDisk();
    expect([...found].filter((unit) => !listed.has(unit))).toEqual([]);
    expect([...listed].filter((unit) => !found.has(unit))).toEqual([]);
  });

  it("only a runner's adapter imports that runner: Jest's packages in environment/jest/, Vitest's in environment/vitest/", () => {
    expect(runnerViolations(packageImports, RUNNERS)).toEqual([]);
  });

  it('the bridge is loaded in both realms, so it loads nothing itself (type imports only)', () => {
    const bridge = edges.filter((e) => e.from === 'src/sandbox/bridge.ts' && !e.typeOnly);
    expect(bridge).toEqual([]);
  });

  it("docs/architecture.md's layer table has the layers of this test, in order, each with its units", () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    expect(layerTable(doc)).toEqual(LAYERS.map((layer) => [...layer].sort()));
  });

  it('docs/architecture.md describes every unit and shows the graph as it is', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    for (const unit of LAYERS.flat()) expect(doc).toContain(`\`${unit}\``);
    // The folder-level graph in the doc is the real one (regenerate it from unitGraph when it moves).
    const block = /```text graph\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block?.trim().split('\n')).toEqual(unitGraph(edges));
  });
});

describe('the sub-layers of src/world in docs/architecture.md', () => {
  it('every file of src/world is in one sub-layer', () => {
    expect(worldFiles().filter((file) => worldLayerOf(file) === -1)).toEqual([]);
  });

  it('no import inside src/world points up a sub-layer (type-only imports count)', () => {
    const up = edges
      .filter((e) => e.from.startsWith('src/world/') && e.to.startsWith('src/world/'))
      .filter((e) => worldLayerOf(e.to) > worldLayerOf(e.from))
      .map((e) => `${e.from} imports "${e.specifier}", a higher sub-layer of src/world`);
    expect(up).toEqual([]);
  });

  it('no file of src/world is over about 400 lines, but the ones listed with a reason', () => {
    const long = worldFiles()
      .filter((file) => !Object.hasOwn(LONG_WORLD_FILES, file.slice('src/world/'.length)))
      .map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 420);
    expect(long).toEqual([]);
  });

  it('docs/architecture.md lists the sub-layers as the test does', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    const block = /```text world-layers\n([\s\S]*?)```/.exec(doc)?.[1];
    const listed = block
      ?.trim()
      .split('\n')
      .map((line) => line.replace(/^[^:]*:\s*/, '').split(/\s+/));
    expect(listed).toEqual(WORLD_LAYERS.map((layer) => [...layer]));
  });
});

describe("the doc's layer table reader", () => {
  const table = [
    '| Layer | Unit | What it is |',
    '|---|---|---|',
    '| low | `a` | x |',
    '| | `b` | y |',
    '| high | `c` | z |',
    '',
  ];

  it('groups units under the layer a row names', () => {
    expect(layerTable(table.join('\n'))).toEqual([['a', 'b'], ['c']]);
  });

  it('sees a unit listed in the wrong layer', () => {
    const moved = [...table];
    moved[3] = '| mid | `b` | y |';
    expect(layerTable(moved.join('\n'))).not.toEqual([['a', 'b'], ['c']]);
  });
});

describe('the import checker', () => {
  const edge = (from: string, to: string, specifier = to, typeOnly = false): ImportEdge => ({
    from,
    to,
    specifier,
    typeOnly,
  });
  const rules: LayerRules = { layers: [['src/errors'], ['src/fixtures', 'src/world'], ['src/run']] };

  it('names an upward import with its file and specifier', () => {
    expect(
      layerViolations([edge('src/fixtures/write.ts', 'src/run/types.ts', '../run/types', true)], rules),
    ).toEqual([
      'src/fixtures/write.ts imports "../run/types" (types): src/fixtures is below src/run, so it must not import it',
    ]);
  });

  it('refuses imports between peers of one layer, and accepts downward ones', () => {
    expect(layerViolations([edge('src/world/a.ts', 'src/fixtures/b.ts', '../fixtures/b')], rules)).toEqual([
      'src/world/a.ts imports "../fixtures/b": src/world and src/fixtures are peers in one layer',
    ]);
    expect(layerViolations([edge('src/run/a.ts', 'src/errors/index.ts', '../errors')], rules)).toEqual([]);
  });

  it('names a unit that is in no layer, and lets a listed exception through', () => {
    expect(layerViolations([edge('src/new/a.ts', 'src/errors/index.ts', '../errors')], rules)).toEqual([
      'src/new/a.ts imports "../errors": src/new is in no layer (add it to the layers)',
    ]);
    const up = edge('src/errors/index.ts', 'src/run/types.ts', '../run/types');
    expect(
      layerViolations([up], { ...rules, exceptions: [{ from: up.from, to: up.to, reason: 'a test' }] }),
    ).toEqual([]);
  });

  it('applies the realm rule whatever the layers say', () => {
    const forbidden = [{ from: /^environment\//, to: /^src\/sandbox\//, unless: /bridge/, reason: 'realm' }];
    const layered: LayerRules = { layers: [['src/sandbox'], ['environment']], forbidden };
    expect(layerViolations([edge('environment/a.ts', 'src/sandbox/runtime.ts', 'x')], layered)).toEqual([
      'environment/a.ts imports "x": realm',
    ]);
    expect(layerViolations([edge('environment/a.ts', 'src/sandbox/bridge.ts', 'x')], layered)).toEqual([]);
  });

  it("names an import of a runner's package from outside its adapter, and lets its adapter and plain libraries through", () => {
    const imports = [
      { file: 'environment/options.ts', specifier: '@jest/types' },
      { file: 'environment/vitest/session.ts', specifier: 'jest-environment-node' },
      { file: 'environment/jest/index.ts', specifier: 'vitest' },
      { file: 'src/run/context.ts', specifier: '@vitest/runner' },
      { file: 'matchers/index.ts', specifier: 'jest-circus/runner' },
      { file: 'environment/jest/index.ts', specifier: 'jest-environment-node' },
      { file: 'environment/vitest/index.ts', specifier: 'vitest/config' },
      { file: 'environment/vitest/session.ts', specifier: 'jest-docblock' },
      { file: 'matchers/prompt.ts', specifier: 'jest-snapshot' },
      { file: 'environment/jestish.ts', specifier: 'jest-matcher-utils' },
    ];
    expect(runnerViolations(imports, RUNNERS)).toEqual([
      'environment/options.ts imports "@jest/types": only environment/jest/ (the Jest adapter) may import Jest',
      'environment/vitest/session.ts imports "jest-environment-node": only environment/jest/ (the Jest adapter) may import Jest',
      'environment/jest/index.ts imports "vitest": only environment/vitest/ (the Vitest adapter) may import Vitest',
      'src/run/context.ts imports "@vitest/runner": only environment/vitest/ (the Vitest adapter) may import Vitest',
      'matchers/index.ts imports "jest-circus/runner": only environment/jest/ (the Jest adapter) may import Jest',
    ]);
  });

  it('scans every source the adapters have, ES modules included: the Vitest setup file imports vitest', () => {
    expect(packageImports).toContainEqual({ file: 'environment/vitest/setup.mts', specifier: 'vitest' });
    expect(packageImports).toContainEqual({ file: 'environment/jest/setup.ts', specifier: '@jest/globals' });
  });

  it('finds cycles between files, and a file that imports itself', () => {
    expect(
      cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts'), edge('c.ts', 'd.ts')]),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(cycles([edge('a.ts', 'a.ts')])).toEqual([['a.ts']]);
    expect(cycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });

  it('reads every way a TypeScript file names another, and which are for types only', () => {
    const source = [
      "import { a } from './a';",
      "import type { B } from './b';",
      "import { type C } from './c';",
      "import './d';",
      "export { e } from './e';",
      "export type { F } from './f';",
      "export * from './g';",
      "const h = require('./h') as typeof import('./h-types');",
      "const i = () => import('./i');",
      "type J = import('./j').J;",
      'const notAnImport = "./k";',
    ].join('\n');
    expect(specifiersOf(source)).toEqual([
      { specifier: './a', typeOnly: false },
      { specifier: './b', typeOnly: true },
      { specifier: './c', typeOnly: true },
      { specifier: './d', typeOnly: false },
      { specifier: './e', typeOnly: false },
      { specifier: './f', typeOnly: true },
      { specifier: './g', typeOnly: false },
      { specifier: './h', typeOnly: false },
      { specifier: './h-types', typeOnly: true },
      { specifier: './i', typeOnly: false },
      { specifier: './j', typeOnly: true },
    ]);
  });

  it('scans the real tree: the sandbox side is found where environment/jest/setup.ts requires it lazily', () => {
    expect(edges).toContainEqual(
      expect.objectContaining({
        from: 'environment/jest/setup.ts',
        to: 'environment/jest/runtime.ts',
        typeOnly: false,
      }),
    );
    expect(statSync(join(root, 'environment/jest/runtime.ts')).isFile()).toBe(true);
  });
});
