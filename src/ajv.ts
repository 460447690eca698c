import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { default as AjvClass, Options } from 'ajv';
import type { default as Ajv2020Class } from 'ajv/dist/2020';
import { loadFile } from './host-services';

/** What dist/ajv.cjs exports (scripts/bundle-ajv.cjs): each class is evaluated when first read. */
export interface AjvLibrary {
  Ajv: typeof AjvClass;
  Ajv2020: typeof Ajv2020Class;
}

let library: AjvLibrary | undefined;

/**
 * dist/ajv.cjs, beside the bundle or the module that loads this (dist/ in the package, dist/src
 * for tsc's output), when it was made from the installed ajv; else undefined.
 */
export function bundledAjv(dirs: readonly string[], installedVersion: () => string): AjvLibrary | undefined {
  for (const dir of dirs) {
    const file = join(dir, 'ajv.cjs');
    if (!existsSync(file)) continue;
    const bundle = loadFile(file) as AjvLibrary & { version?: unknown };
    // Made from another ajv than the one installed beside the package: that one is ajv here.
    return bundle.version === installedVersion() ? bundle : undefined;
  }
  return undefined;
}

/**
 * ajv, loaded on first use: the package is loaded into every test file that imports
 * jest-understudy, and evaluating ajv costs each of them. From the package it runs as one file
 * through the host services' runner (from V8's code cache), else as the installed modules.
 */
export function ajvLibrary(): AjvLibrary {
  library ??= bundledAjv([__dirname, join(__dirname, '..')], () => require('ajv/package.json').version) ?? {
    get Ajv() {
      return (require('ajv') as typeof import('ajv')).default;
    },
    get Ajv2020() {
      return (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default;
    },
  };
  return library;
}

/** A new (draft-07) ajv instance. */
export function createAjv(options: Options): AjvClass {
  return new (ajvLibrary().Ajv)(options);
}
