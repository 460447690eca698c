/**
 * js-yaml, loaded on first use: under the environment the host parses files, so a test file's
 * sandbox never loads it, and the host runs its file from V8's code cache (../host-services.ts).
 */
import { loadFile } from '../host-services';

let lib: typeof import('js-yaml') | undefined;

export function jsYamlLibrary(): typeof import('js-yaml') {
  lib ??= loadFile(require.resolve('js-yaml')) as typeof import('js-yaml');
  return lib;
}
