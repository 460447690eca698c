/**
 * jest-understudy's `msw/node`: a server listens with the session of the test file that calls
 * `listen`. Under Vitest's `isolate: false` a server a shared module made outlives the file that
 * first listened with it; the next file's `listen` must reach that file's session, whether or not
 * the first file closed it.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { setupServer } from '../../../../src/sandbox/msw-node';
import type { SandboxRuntime } from '../../../../src/sandbox/runtime';

const SESSION_KEY = Symbol.for('jest-understudy.runtime');
const g = globalThis as unknown as Record<symbol, unknown>;

/** A file's session, as far as the server uses it: its handler groups. */
function session() {
  const http = { listen: jest.fn(), close: jest.fn() };
  const runtime = { http, context: { refuseConcurrent: () => undefined } };
  return { runtime: runtime as unknown as SandboxRuntime, http };
}

afterEach(() => {
  delete g[SESSION_KEY];
});

describe('setupServer(...).listen()', () => {
  it("listens once with the running file's session", () => {
    const first = session();
    g[SESSION_KEY] = first.runtime;
    const server = setupServer();
    server.listen();
    server.listen();
    expect(first.http.listen).toHaveBeenCalledTimes(1);
    expect(server.readyState).toBe(1);
  });

  it("listens again with the next file's session when the first never closed it", () => {
    const [first, next] = [session(), session()];
    g[SESSION_KEY] = first.runtime;
    const server = setupServer();
    server.listen();
    g[SESSION_KEY] = next.runtime;
    server.listen();
    expect(next.http.listen).toHaveBeenCalledWith(server);
    server.close();
    expect(next.http.close).toHaveBeenCalledWith(server);
    expect(first.http.close).not.toHaveBeenCalled();
    expect(server.readyState).toBe(0);
  });
});
