#!/usr/bin/env node
// Writes schemas/*.schema.json from the TypeScript modules that define them, so the
// published JSON and the schema the loader compiles can never drift (a test checks it).
// Node >= 22.18 loads the .ts module with its built-in type stripping.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The package has no "type" field, so Node notes that it re-parsed the .ts module as
// ESM. That note is noise for this script; every other warning still prints.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.code !== 'MODULE_TYPELESS_PACKAGE_JSON') console.warn(warning);
});

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemas = [
  { name: 'fixtures', module: 'src/fixtures/fixtures.schema.ts', exportName: 'fixturesSchema' },
  { name: 'golden', module: 'src/golden/golden.schema.ts', exportName: 'goldenSchema' },
  { name: 'history', module: 'src/reporter/history.schema.ts', exportName: 'historySchema' },
  { name: 'live-report', module: 'src/nightly/report.schema.ts', exportName: 'liveReportSchema' },
  { name: 'world', module: 'src/world/world.schema.ts', exportName: 'worldSchema' },
  { name: 'options', module: 'environment/options.schema.ts', exportName: 'optionsSchema' },
];

// Each schema's validators, precompiled (ajv standalone code): loading a file then costs a few
// ms per test file instead of compiling its schema (see src/precompile.ts).
const { precompiledValidators } = await import(join(root, 'src/precompile-code.ts'));
const { schemaHash, AJV_OPTIONS, PRECOMPILED } = await import(join(root, 'src/precompile.ts'));

for (const { name, module, exportName } of schemas) {
  const exports = await import(join(root, module));
  const schema = exports[exportName];
  if (!schema) throw new Error(`${module} does not export ${exportName}`);
  writeFileSync(join(root, `schemas/${name}.schema.json`), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote schemas/${name}.schema.json`);
  writeFileSync(
    join(root, `schemas/${name}.validate.cjs`),
    precompiledValidators(name, schema, PRECOMPILED[name], AJV_OPTIONS, schemaHash, module),
  );
  console.log(`wrote schemas/${name}.validate.cjs`);
}
