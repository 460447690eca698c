/**
 * What a worker does once before its first test file's network is contained: Node's own undici
 * Agent is found behind its fetch (the dispatcher every realm's interception is built from), and
 * the shared msw server is built without leaving the stack-trace limit changed. Each check runs
 * in a worker thread of its own: a realm where nothing has loaded Node's undici yet.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from '@jest/globals';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Runs `code` in a new worker thread that loads TypeScript sources: it loads the repository's
 * modules with `load(path)` and hands back its result with `report(value)`.
 */
function inFreshThread(code: string): Promise<unknown> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const load = (file) => require(require('node:path').join(workerData.root, file));
     const report = (value) => parentPort.postMessage(value);
     ${code}`,
    { eval: true, execArgv: ['--require', require.resolve('esbuild-register')], workerData: { root: ROOT } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (value) => {
      resolve(value);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const AGENT = `
  const { bundledAgent, DISPATCHER_KEYS } = load('environment/network/dispatcher.ts');
  const slot = () => globalThis[DISPATCHER_KEYS[0]];
  const before = slot() === undefined;
  const Agent = bundledAgent();
  const agent = slot();
  report({ before, name: Agent.name, instance: agent instanceof Agent, dispatches: typeof new Agent().dispatch });`;

describe("a worker's start-up", () => {
  it("finds Node's undici Agent behind its global dispatcher, creating it where nothing had", async () => {
    expect(await inFreshThread(AGENT)).toEqual({
      before: true,
      name: 'Agent',
      instance: true,
      dispatches: 'function',
    });
  });

  it('finds it too where something replaced the global Headers (a DOM environment)', async () => {
    expect(await inFreshThread(`globalThis.Headers = class Headers {};${AGENT}`)).toEqual({
      before: true,
      name: 'Agent',
      instance: true,
      dispatches: 'function',
    });
  });

  it('builds the shared msw server synchronously and leaves the stack-trace limit as it found it', async () => {
    const code = `
      const { startInterception } = load('environment/msw.ts');
      Error.stackTraceLimit = 17;
      const hooks = { handle: () => undefined, decide: () => ({ action: 'pass' }), fail: () => {} };
      const interception = startInterception(hooks);
      const limit = Error.stackTraceLimit;
      interception.close();
      report({ limit, major: interception.majorVersion });`;
    expect(await inFreshThread(code)).toEqual({ limit: 17, major: expect.any(Number) });
  });

  // What msw's start shows on the globals (a Proxy over each class it intercepts), with the containment
  // of one file open, then closed.
  const CONTAINED = `
    const { types } = require('node:util');
    const { contain } = load('environment/network/index.ts');
    const hooks = {
      handle: () => undefined, serves: () => false, fail: () => {}, handlersAnswer: () => false,
      acceptSocket: () => undefined,
    };
    const intercepted = () => ({
      WebSocket: types.isProxy(globalThis.WebSocket),
      XMLHttpRequest: globalThis.XMLHttpRequest !== undefined && types.isProxy(globalThis.XMLHttpRequest),
    });
    contain(hooks, globalThis, { allow: [] }).then(async (containment) => {
      const open = intercepted();
      await containment.close();
      report({ open, closed: intercepted() });
    });`;

  it('contains a file without starting msw', async () => {
    expect(await inFreshThread(CONTAINED)).toEqual({
      open: { WebSocket: false, XMLHttpRequest: false },
      closed: { WebSocket: false, XMLHttpRequest: false },
    });
  });

  it('starts msw with the file where XMLHttpRequest exists (a DOM environment): it patches the global only when it starts', async () => {
    const dom = `globalThis.XMLHttpRequest = class XMLHttpRequest {};${CONTAINED}`;
    expect(await inFreshThread(dom)).toEqual({
      open: { WebSocket: true, XMLHttpRequest: true },
      closed: { WebSocket: false, XMLHttpRequest: false },
    });
  });

  it("starts msw's own server where require('msw/node') gives jest-understudy's (the Vitest plugin's worker)", async () => {
    // A setupServer whose listen patches nothing, as jest-understudy's own msw/node is to the network.
    const code = `
      const { writeFileSync, mkdtempSync } = require('node:fs');
      const { join } = require('node:path');
      const served = join(mkdtempSync(join(require('node:os').tmpdir(), 'msw-node-')), 'msw-node.js');
      writeFileSync(served, 'exports.setupServer = () => ({ listen() {}, close() {} });');
      load('environment/vitest/msw-require.ts').serveMswToRequire(served);
      const http = require('node:http');
      const net = require('node:net');
      const before = [globalThis.fetch, net.Socket.prototype.connect, http.request];
      const { startInterception } = load('environment/msw.ts');
      const hooks = { handle: () => undefined, decide: () => ({ action: 'pass' }), fail: () => {} };
      const interception = startInterception(hooks);
      const patched = [globalThis.fetch, net.Socket.prototype.connect, http.request].map((f, i) => f !== before[i]);
      interception.close();
      const restored = [globalThis.fetch, net.Socket.prototype.connect, http.request].every((f, i) => f === before[i]);
      report({ fetch: patched[0], nodeHttp: patched[1] || patched[2], restored });`;
    expect(await inFreshThread(code)).toEqual({ fetch: true, nodeHttp: true, restored: true });
  });
});
