/**
 * ajv from one file (dist/ajv.cjs, scripts/bundle-ajv.cjs; its equality with the installed ajv is
 * __tests__/e2e/package/ajv-bundle.test.ts) runs through the environment's runner of large files
 * (V8's code cache, kept between processes), and only when made from the installed ajv.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { recordingRunner } from '../../support/file-runner';

type AjvModule = typeof import('../../../src/ajv');
type Services = typeof import('../../../src/host-services');

const installedVersion = (): string => require('ajv/package.json').version;

function fresh(): { ajv: AjvModule; services: Services } {
  let loaded: { ajv: AjvModule; services: Services } | undefined;
  jest.isolateModules(() => {
    loaded = { ajv: require('../../../src/ajv'), services: require('../../../src/host-services') };
  });
  return loaded!;
}

let dir: string;

/** A stand-in for the bundle, made from the version `version`, whose classes are marked. */
function writeBundle(at: string, version: string): void {
  mkdirSync(at, { recursive: true });
  writeFileSync(
    join(at, 'ajv.cjs'),
    `module.exports = { version: ${JSON.stringify(version)}, get Ajv() { return class BundledAjv {}; }, get Ajv2020() { return class BundledAjv2020 {}; } };\n`,
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'understudy-ajv-'));
  writeBundle(join(dir, 'same'), installedVersion());
  writeBundle(join(dir, 'other'), '0.0.0-other');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ajv from one file', () => {
  it("runs through the host's runner when one is set, from the first folder that has it", () => {
    const { ajv, services } = fresh();
    const ran: string[] = [];
    services.runFilesWith(recordingRunner(ran));
    const bundled = ajv.bundledAjv([join(dir, 'nowhere'), join(dir, 'same')], installedVersion);
    expect(ran).toEqual([join(dir, 'same', 'ajv.cjs')]);
    expect(bundled?.Ajv.name).toBe('BundledAjv');
    expect(bundled?.Ajv2020.name).toBe('BundledAjv2020');
  });

  it('is left for the installed ajv when made from another version', () => {
    const { ajv, services } = fresh();
    const ran: string[] = [];
    services.runFilesWith(recordingRunner(ran));
    expect(ajv.bundledAjv([join(dir, 'other'), join(dir, 'same')], installedVersion)).toBeUndefined();
    expect(ran).toEqual([join(dir, 'other', 'ajv.cjs')]);
  });

  it('is left for the installed ajv when there is no file', () => {
    const { ajv, services } = fresh();
    const ran: string[] = [];
    services.runFilesWith(recordingRunner(ran));
    expect(ajv.bundledAjv([join(dir, 'nowhere')], installedVersion)).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it('from the sources (no dist/ajv.cjs beside them) is the installed ajv, loaded once', () => {
    const { ajv } = fresh();
    const library = ajv.ajvLibrary();
    expect(library.Ajv).toBe(require('ajv').default);
    expect(library.Ajv2020).toBe(require('ajv/dist/2020').default);
    expect(ajv.ajvLibrary()).toBe(library);
    expect(ajv.createAjv({ strict: false })).toBeInstanceOf(require('ajv').default);
  });
});
