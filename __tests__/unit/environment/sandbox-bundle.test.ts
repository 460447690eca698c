/**
 * The sandbox bundle compiled once per worker and run in each test file's realm: each run is a
 * fresh evaluation in that realm (its own objects and built-ins), with the CommonJS arguments a
 * module gets, and a bundle changed on disk is read again.
 */
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from '@jest/globals';
import { hostServicesForWorker } from '../../../environment/host-services';
import { runBundle } from '../../../environment/sandbox-bundle';

const dir = mkdtempSync(join(tmpdir(), 'understudy-bundle-'));
const write = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const BUNDLE =
  'const seen = [];\n' +
  'module.exports = { seen, isArray: (x) => x instanceof Array, file: __filename, dir: __dirname, ' +
  'self: this === exports, fromRequire: require("answer"), line: new Error("here").stack.split("\\n")[1] };\n';

describe('runBundle', () => {
  it('evaluates the bundle afresh in each realm, with its own objects and built-ins', () => {
    const file = write('fresh.cjs', BUNDLE);
    const require = (id: string) => (id === 'answer' ? 42 : undefined);
    const realms = [vm.createContext({}), vm.createContext({})];
    const exported = realms.map((realm) => {
      const module = { exports: {} as Record<string, unknown> };
      expect(runBundle(realm, file, module, require)).toBe(true);
      return module.exports;
    });
    expect(exported[0].seen).not.toBe(exported[1].seen);
    // Each realm's Array: the bundle's `[]` is not an instance of this realm's Array.
    // biome-ignore lint/suspicious/useIsArray: which realm made the array is what is checked
    expect(exported[0].seen instanceof Array).toBe(false);
    expect((exported[0].isArray as (x: unknown) => boolean)(exported[0].seen)).toBe(true);
    expect((exported[0].isArray as (x: unknown) => boolean)(exported[1].seen)).toBe(false);
    expect(exported[0]).toMatchObject({ file, dir, self: true, fromRequire: 42 });
  });

  it("keeps the file's name and line numbers in stack traces", () => {
    const file = write('lines.cjs', BUNDLE);
    const module = { exports: {} as Record<string, unknown> };
    runBundle(vm.createContext({}), file, module, () => 0);
    expect(module.exports.line).toContain(`${file}:2:`);
  });

  it('reads a bundle again once it changed on disk', () => {
    const file = write('changed.cjs', 'module.exports = { version: 1 };\n');
    const run = () => {
      const module = { exports: {} as { version?: number } };
      runBundle(vm.createContext({}), file, module, () => undefined);
      return module.exports.version;
    };
    expect(run()).toBe(1);
    writeFileSync(file, 'module.exports = { version: 2 };\n');
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    expect(run()).toBe(2);
  });

  it("runs in the worker's own realm when no realm is given (Vitest)", () => {
    const file = write('own.cjs', BUNDLE);
    const module = { exports: {} as Record<string, unknown> };
    expect(hostServicesForWorker(undefined, { sameRealm: true }).runBundle?.(file, module, () => 7)).toBe(
      true,
    );
    expect(module.exports).toMatchObject({ file, self: true, fromRequire: 7 });
  });

  it('is offered by the host services only when the environment gives a realm or shares its own', () => {
    expect(hostServicesForWorker().runBundle).toBeUndefined();
    const realm = vm.createContext({ marker: 'the test file realm' });
    const file = write('offered.cjs', 'module.exports = { marker: globalThis.marker };\n');
    const module = { exports: {} };
    expect(hostServicesForWorker(undefined, { realm }).runBundle?.(file, module, () => 0)).toBe(true);
    expect(module.exports).toEqual({ marker: 'the test file realm' });
  });
});
