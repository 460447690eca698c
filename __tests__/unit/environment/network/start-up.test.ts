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

  // A thread's dispatcher installed on first use, recording the origin of each request it is given.
  const DEFERRED = `
    const { installDispatcherOnUse, DISPATCHER_KEYS } = load('environment/network/dispatcher.ts');
    const loaded = () => process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
    const seen = [];
    const deferred = installDispatcherOnUse(globalThis, (Agent) => {
      const inner = new Agent();
      const Base = Object.getPrototypeOf(Object.getPrototypeOf(Agent.prototype)).constructor;
      class Recording extends Base {
        dispatch(options, handler) { seen.push(String(options.origin)); return inner.dispatch(options, handler); }
        close() { return inner.close(); }
        destroy() { return inner.destroy(); }
      }
      return new Recording();
    });
    const settled = (promise) => promise.then(() => 'answered', (error) => 'failed');
    const define = Object.defineProperty;
    const slotIs = () => DISPATCHER_KEYS.map((key) => globalThis[key]?.constructor.name);`;

  it('loads no undici in a thread that never sends, and leaves its globals as Node made them', async () => {
    const code = `${DEFERRED}
      const before = loaded();
      deferred.restore();
      const slots = DISPATCHER_KEYS.some((key) => Object.hasOwn(globalThis, key));
      report({ before, after: loaded(), slots, fetch: globalThis.fetch.name });`;
    expect(await inFreshThread(code)).toEqual({ before: false, after: false, slots: false, fetch: 'fetch' });
  });

  it('makes the dispatcher in the async context it was set up in, not in the run that first sends', async () => {
    const code = `
      const { AsyncLocalStorage } = require('node:async_hooks');
      const { installDispatcherOnUse } = load('environment/network/dispatcher.ts');
      const run = new AsyncLocalStorage();
      let madeIn = 'not made';
      installDispatcherOnUse(globalThis, (Agent) => {
        madeIn = run.getStore() ?? 'the set-up context';
        return new Agent();
      });
      run.run('a run', () => fetch('http://127.0.0.1:2/first').catch(() => 'failed'))
        .then(() => report({ madeIn }));`;
    expect(await inFreshThread(code)).toEqual({ madeIn: 'the set-up context' });
  });

  it("puts Node's own agent back when the file ends, where Node's undici loaded during the file", async () => {
    // Under a runner that formats stacks its own way (Vite maps them through source maps): the
    // loading is told from V8's call sites, and the runner's formatter is left in place.
    const code = `${DEFERRED}
      const format = () => 'a stack as the runner formats it';
      let sets = 0;
      // A formatter behind an accessor, whose setter must never see another one.
      Object.defineProperty(Error, 'prepareStackTrace', {
        configurable: true,
        get: () => format,
        set: () => void sets++,
      });
      const accessor = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
      Error.stackTraceLimit = 7;
      new Headers();
      Promise.resolve().then(() => {
        const during = slotIs()[0];
        deferred.restore();
        report({
          during,
          after: slotIs()[0],
          defineProperty: Object.defineProperty === define,
          prepareStackTrace: Error.prepareStackTrace === format,
          sameAccessor: Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace').set === accessor.set,
          sets,
          limit: Error.stackTraceLimit,
        });
      });`;
    expect(await inFreshThread(code)).toEqual({
      during: 'Recording',
      after: 'Agent',
      defineProperty: true,
      prepareStackTrace: true,
      sameAccessor: true,
      sets: 0,
      limit: 7,
    });
  });

  it('puts the dispatcher under the first request, whichever way it is made', async () => {
    const ways = {
      fetch: `settled(fetch('http://127.0.0.1:2/first'))`,
      // Node's undici loaded by a global first: the dispatcher replaces Node's agent before the fetch sends.
      response: `(new Response('x'), settled(fetch('http://127.0.0.1:2/first')))`,
      // The undici package reads the dispatcher's slot when it loads.
      undici: `settled(require('undici').request('http://127.0.0.1:2/first'))`,
      ...(typeof WebSocket === 'function' && {
        websocket: `new Promise((done) => { const ws = new WebSocket('ws://127.0.0.1:2/first'); ws.onerror = ws.onclose = () => done('failed'); })`,
      }),
    };
    for (const [way, send] of Object.entries(ways)) {
      const code = `${DEFERRED}
        const before = loaded();
        (${send}).then((outcome) => report({ way: '${way}', before, outcome, seen, slots: slotIs(), defineProperty: Object.defineProperty === define }));`;
      expect(await inFreshThread(code)).toEqual({
        way,
        before: false,
        outcome: 'failed',
        seen: ['http://127.0.0.1:2'],
        slots: ['Recording', 'Recording'],
        defineProperty: true,
      });
    }
  });

  // What msw's start shows on the globals: a Proxy over each class it intercepts.
  const INTERCEPTED = `
    const { types } = require('node:util');
    const { contain } = load('environment/network/index.ts');
    const hooks = {
      handle: () => undefined, serves: () => false, fail: () => {}, handlersAnswer: () => false,
      acceptSocket: () => undefined,
    };
    const intercepted = () => ({
      // Node 20 has no global WebSocket (it needs --experimental-websocket): nothing to patch.
      WebSocket: globalThis.WebSocket !== undefined && types.isProxy(globalThis.WebSocket),
      XMLHttpRequest: globalThis.XMLHttpRequest !== undefined && types.isProxy(globalThis.XMLHttpRequest),
    });`;

  // The globals with the containment of one file open, then closed.
  const CONTAINED = `${INTERCEPTED}
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
      open: { WebSocket: Number(process.versions.node.split('.')[0]) >= 22, XMLHttpRequest: true },
      closed: { WebSocket: false, XMLHttpRequest: false },
    });
  });

  it("starts msw with each later file of a thread one file started it in, where files share the thread's realm (Vitest under isolate: false)", async () => {
    // A module of the first file may keep msw's WebSocket class, which connects only while msw listens.
    const code = `${INTERCEPTED}
      (async () => {
        const first = await contain(hooks, globalThis, { allow: [] });
        const before = intercepted();
        await first.fetch('http://127.0.0.1:9/').catch(() => undefined);
        await first.close();
        const next = await contain(hooks, globalThis, { allow: [] });
        const shared = intercepted();
        await next.close();
        const own = await contain(hooks, require('node:vm').createContext(), { allow: [] });
        const sandboxed = intercepted();
        await own.close();
        report({ before, shared, sandboxed, closed: intercepted() });
      })();`;
    expect(await inFreshThread(code)).toEqual({
      before: { WebSocket: false, XMLHttpRequest: false },
      shared: { WebSocket: Number(process.versions.node.split('.')[0]) >= 22, XMLHttpRequest: false },
      // Jest's sandbox is a realm of its own per file: nothing of an earlier file's modules reaches it.
      sandboxed: { WebSocket: false, XMLHttpRequest: false },
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
