/**
 * The setup file the Vitest plugin (./index.ts) puts first in every test project: starts the test
 * file's session (./session.ts) with Vitest's own hooks and `expect`, and serves `msw/node` to
 * what Node's require loads (./msw-require.ts).
 */
import * as vitest from 'vitest';
import mswRequire from './msw-require.js';
import provided from './provided.js';
import session from './session.js';

mswRequire.serveMswToRequire();

await session.startSession(
  {
    beforeEach: vitest.beforeEach,
    afterAll: vitest.afterAll,
    aroundEach: (vitest as Record<string, unknown>).aroundEach,
    vi: vitest.vi,
    expect: vitest.expect,
    globals: { test: vitest.test, it: vitest.it, describe: vitest.describe, expect: vitest.expect },
  } as unknown as import('./session.js').VitestApi,
  vitest.inject(provided.PROVIDE_KEY as never) as import('./provided.js').ProvidedSession | undefined,
);
