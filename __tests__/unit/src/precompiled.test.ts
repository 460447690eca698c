/**
 * Every file format's schema (and the options') is published as JSON and as precompiled ajv
 * code; both must be exactly what the TypeScript schema modules define, and the loaders must
 * use the precompiled code (compiling inside each test file's sandbox is what it saves).
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import Ajv from 'ajv';
import { optionsSchema } from '../../../environment/options.schema';
import { fixturesSchema } from '../../../src/fixtures/fixtures.schema';
import { goldenSchema } from '../../../src/golden/golden.schema';
import { HOST_SERVICES, hostServices } from '../../../src/host-services';
import { liveReportSchema } from '../../../src/nightly/report.schema';
import { AJV_OPTIONS, PRECOMPILED, schemaHash } from '../../../src/precompile';
import { precompiledValidators } from '../../../src/precompile-code';
import { historySchema } from '../../../src/reporter/history.schema';
import { schemaValidator } from '../../../src/validators';
import { worldSchema } from '../../../src/world/world.schema';

const root = join(__dirname, '..', '..', '..');
const SCHEMAS = [
  ['fixtures', fixturesSchema, 'src/fixtures/fixtures.schema.ts'],
  ['golden', goldenSchema, 'src/golden/golden.schema.ts'],
  ['history', historySchema, 'src/reporter/history.schema.ts'],
  ['live-report', liveReportSchema, 'src/nightly/report.schema.ts'],
  ['world', worldSchema, 'src/world/world.schema.ts'],
  ['options', optionsSchema, 'environment/options.schema.ts'],
] as const;

describe.each(SCHEMAS)('schemas/%s.*', (name, schema, module) => {
  it(`${name}.schema.json is exactly what ${module} defines (run scripts/write-schemas.mjs after changing it)`, () => {
    const committed = JSON.parse(readFileSync(join(root, 'schemas', `${name}.schema.json`), 'utf8'));
    expect(committed).toStrictEqual(JSON.parse(JSON.stringify(schema)));
  });

  it(`${name}.validate.cjs is the precompiled code of exactly this schema (run scripts/write-schemas.mjs)`, () => {
    const committed = readFileSync(join(root, 'schemas', `${name}.validate.cjs`), 'utf8');
    expect(committed).toContain(`exports.schemaHash = ${JSON.stringify(schemaHash(schema))};`);
    expect(committed).toBe(
      precompiledValidators(name, schema, PRECOMPILED[name], AJV_OPTIONS, schemaHash, module),
    );
  });

  it("under the environment, the loaders get the worker's precompiled functions from the host (the history file is the reporter's and the live report the CLI's: read on the host, not served)", () => {
    const services = hostServices();
    expect(services).toBeDefined();
    if (name === 'history' || name === 'live-report') {
      for (const exportName of Object.keys(PRECOMPILED[name]))
        expect(services?.validator(name, exportName)).toBeUndefined();
      return;
    }
    const mod = require(join(root, 'schemas', `${name}.validate.cjs`)) as Record<string, unknown>;
    for (const exportName of Object.keys(PRECOMPILED[name])) {
      const served = schemaValidator(name, schema, exportName as never);
      expect(served).toBe(services?.validator(name, exportName));
      // The host's copy of the same precompiled module, not a run-time compile.
      expect(served).not.toBe(mod[exportName]);
      expect(String(served)).toBe(String(mod[exportName]));
    }
  });

  it("under the environment, a validator file the host does not serve runs as the package's bundles do (V8's code cache), not through require", () => {
    const mod = require(join(root, 'schemas', `${name}.validate.cjs`)) as Record<string, unknown>;
    const services = hostServices();
    const ran: string[] = [];
    const runBundle = services?.runBundle;
    expect(runBundle).toBeDefined();
    jest.isolateModules(() => {
      const { schemaValidator: fresh } =
        require('../../../src/validators') as typeof import('../../../src/validators');
      const g = globalThis as Record<symbol, unknown>;
      g[HOST_SERVICES] = {
        ...services,
        validator: () => undefined,
        runBundle: (file: string, module: { exports: unknown }, req: (id: string) => unknown) => {
          ran.push(file);
          return runBundle?.(file, module, req) ?? false;
        },
      };
      try {
        for (const exportName of Object.keys(PRECOMPILED[name])) {
          const loaded = fresh(name, schema, exportName as never);
          expect(loaded).not.toBe(mod[exportName]);
          expect(String(loaded)).toBe(String(mod[exportName]));
        }
      } finally {
        g[HOST_SERVICES] = services;
      }
    });
    expect(ran).toEqual([join(root, 'schemas', `${name}.validate.cjs`)]);
  });

  it('without the environment, the loaders get the precompiled functions, not a run-time compile', () => {
    const g = globalThis as Record<symbol, unknown>;
    const services = g[HOST_SERVICES];
    delete g[HOST_SERVICES];
    try {
      const mod = require(join(root, 'schemas', `${name}.validate.cjs`)) as Record<string, unknown>;
      for (const exportName of Object.keys(PRECOMPILED[name]))
        expect(schemaValidator(name, schema, exportName as never)).toBe(mod[exportName]);
    } finally {
      g[HOST_SERVICES] = services;
    }
  });

  it('compiles with a plain strict ajv', () => {
    expect(() =>
      new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false }).compile(schema),
    ).not.toThrow();
  });
});
