/**
 * `understudy mcp stdio` speaks JSON-RPC 2.0, also when the served port refuses a call (a child
 * that outlived its run): every request gets one response with its id (a result, or an error with
 * an integer code), an invalid message gets -32600, a notification gets nothing. The MCP SDK's
 * client gets its error at once instead of waiting out its timeout. Each test here fails with
 * RUN_ENDED (a call after its run is never let go quietly); nothing else may fail it.
 * @understudy-world ./truthful.world.yaml
 */
const { spawn } = require('node:child_process');
const { delimiter, join } = require('node:path');
const { createInterface } = require('node:readline');
const { beforeAll, expect, it } = require('./runner-globals.cjs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { understudy } = require('jest-understudy');

const PATH = `${join(__dirname, '..', '..', 'node_modules', '.bin')}${delimiter}${process.env.PATH}`;

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

/** The stdio server as a process, spoken to line by line. */
function stdioServer(env) {
  const child = spawn('understudy', ['mcp', 'stdio', '--package', 'orders'], {
    env: { ...process.env, ...env, PATH },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = [];
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(JSON.parse(line));
    for (const wake of waiting.splice(0)) wake();
  });
  return {
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    /** The next line the server writes (it must come within 15 s: the first waits for the process to start). */
    async next() {
      const deadline = Date.now() + 15000;
      while (lines.length === 0) {
        if (Date.now() > deadline) throw new Error('the stdio server wrote nothing within 15 s');
        await new Promise((wake) => {
          waiting.push(wake);
          setTimeout(wake, 100);
        });
      }
      return lines.shift();
    },
    close: () => new Promise((done) => child.once('exit', done).stdin.end()),
  };
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

it('answers every request with JSON-RPC 2.0 and a notification with nothing, after its run ended', async () => {
  let server;
  await understudy.run(async () => {
    server = stdioServer(served.env);
    server.send(INIT);
    expect(await server.next()).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18' },
    });
  });
  try {
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const refused = await server.next();
    expect(refused).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: expect.any(Number),
        message: expect.stringContaining('already ended'),
        data: expect.anything(),
      },
    });
    expect(Number.isInteger(refused.error.code)).toBe(true);
    server.send({ id: 3, method: 'ping' });
    expect(await server.next()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32600 } });
    server.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    server.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    // The notification in between got no line: the next one answers request 4.
    expect(await server.next()).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: expect.any(Number) } });
  } finally {
    await server.close();
  }
}, 30000);

it("the MCP SDK's client gets the refusal as an error at once", async () => {
  let client;
  await understudy.run(async () => {
    client = new Client({ name: 'late-agent', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'understudy',
        args: ['mcp', 'stdio', '--package', 'orders'],
        env: { ...process.env, ...served.env, PATH },
      }),
    );
  });
  try {
    const started = Date.now();
    await expect(client.listTools(undefined, { timeout: 10000 })).rejects.toThrow(/already ended/);
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    await client.close();
  }
}, 30000);
