/**
 * The setup file the Vitest plugin (./index.ts) puts first in every test project: starts the test
 * file's session (./session.ts) with Vitest's own hooks and `expect`.
 */
import { afterAll, afterEach, beforeEach, expect, inject } from 'vitest';
import provided from './provided.js';
import session from './session.js';

await session.startSession(
  { beforeEach, afterEach, afterAll, expect } as unknown as import('./session.js').VitestApi,
  inject(provided.PROVIDE_KEY as never) as import('./provided.js').ProvidedSession | undefined,
);
