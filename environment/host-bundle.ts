/**
 * Loads dist/host.cjs, the host side a test worker runs (scripts/bundle-host.cjs), once per
 * process, through the runner the sandbox bundle uses (./sandbox-bundle.ts: compiled from V8's
 * code cache when an earlier process left one).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runBundle } from './sandbox-bundle';

interface HostBundle {
  jestEnvironment: unknown;
  vitestSession: unknown;
}

let loaded: HostBundle | undefined;

export function loadHostBundle(): HostBundle {
  if (loaded) return loaded;
  const file = join(__dirname, '..', 'host.cjs');
  const module = { exports: {} as HostBundle };
  runBundle(undefined, file, module, createRequire(file));
  loaded = module.exports;
  return loaded;
}
