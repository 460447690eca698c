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
  { module: 'src/fixtures/fixtures.schema.ts', name: 'fixturesSchema', out: 'schemas/fixtures.schema.json' },
  { module: 'src/golden/golden.schema.ts', name: 'goldenSchema', out: 'schemas/golden.schema.json' },
  { module: 'src/world/world.schema.ts', name: 'worldSchema', out: 'schemas/world.schema.json' },
];

for (const { module, name, out } of schemas) {
  const exports = await import(join(root, module));
  const schema = exports[name];
  if (!schema) throw new Error(`${module} does not export ${name}`);
  writeFileSync(join(root, out), `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

// The world schema's validators, precompiled (ajv standalone code): loading a world then costs
// a few ms per test file instead of compiling the schema (see src/world/precompile.ts).
{
  const { worldSchema } = await import(join(root, 'src/world/world.schema.ts'));
  const { precompiledWorldValidators } = await import(join(root, 'src/world/precompile-code.ts'));
  const { schemaHash, WORLD_AJV_OPTIONS } = await import(join(root, 'src/world/precompile.ts'));
  writeFileSync(
    join(root, 'schemas/world.validate.cjs'),
    precompiledWorldValidators(worldSchema, WORLD_AJV_OPTIONS, schemaHash),
  );
  console.log('wrote schemas/world.validate.cjs');
}
