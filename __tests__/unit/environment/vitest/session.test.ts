import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { startSession, type VitestApi } from '../../../../environment/vitest/session';

const dir = mkdtempSync(join(tmpdir(), 'understudy-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Vitest's functions as the setup file hands them over, the hooks kept to be called by the test. */
function fakeVitest(testPath: string) {
  const hooks: Record<string, Array<(...args: any[]) => unknown>> = {
    beforeEach: [],
    afterEach: [],
    afterAll: [],
  };
  const vi = { useFakeTimers: () => vi, useRealTimers: () => vi, clearAllTimers: () => vi };
  const api = {
    beforeEach: (fn: () => unknown) => hooks.beforeEach.push(fn),
    afterEach: (fn: () => unknown) => hooks.afterEach.push(fn),
    afterAll: (fn: () => unknown) => hooks.afterAll.push(fn),
    vi,
    expect: { extend: () => undefined, getState: () => ({ testPath }) },
    globals: {} as VitestApi['globals'],
  } as unknown as VitestApi;
  return { api, hooks, vi };
}

describe('the Vitest session of one test file', () => {
  it('refuses a session without the plugin, saying to add it', async () => {
    const { api } = fakeVitest(join(dir, 'c.test.mjs'));
    await expect(startSession(api, undefined)).rejects.toThrow(
      "add the plugin (`plugins: [understudy()]` from 'jest-understudy/vitest')",
    );
  });
});
