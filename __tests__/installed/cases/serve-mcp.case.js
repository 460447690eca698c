/**
 * The installed `understudy mcp stdio --package orders`, spawned by @modelcontextprotocol/sdk's
 * stdio client transport as an agent's configured MCP server; and an agent that swallows the
 * error of a tool the server does not have, which must still fail its test.
 * @understudy-world ./serve-orders.world.yaml
 */
const { delimiter, join } = require('node:path');
const { beforeAll, expect, it } = require('./runner-globals.cjs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { understudy } = require('jest-understudy');

const PATH = `${join(__dirname, '..', '..', 'node_modules', '.bin')}${delimiter}${process.env.PATH}`;

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

async function connect() {
  const client = new Client({ name: 'installed-stdio', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: 'understudy',
      args: ['mcp', 'stdio', '--package', 'orders'],
      env: { ...process.env, ...served.env, PATH },
    }),
  );
  return client;
}

it('an agent spawns understudy mcp stdio and refunds through the world', async () => {
  const run = await understudy.run(async () => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      await client.callTool({ name: 'get_order', arguments: { id: 'A-1001' } });
      const refund = await client.callTool({ name: 'refund_order', arguments: { id: 'A-1001', amount: 89 } });
      return { tools: tools.map((t) => t.name), refunded: !refund.isError };
    } finally {
      await client.close();
    }
  });
  expect(run.output).toEqual({ tools: ['get_order', 'refund_order', 'send_email'], refunded: true });
  expect(run.operations.map((op) => `${op.transport} ${op.operationId}`)).toEqual([
    'mcp orders.get',
    'mcp orders.refund',
  ]);
  expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
}, 60000);

it('no false green: an agent that swallows the error of a tool the stdio server does not have', async () => {
  const client = await connect();
  let answer = 'fallback';
  try {
    const result = await client.callTool({ name: 'cancel_order', arguments: { id: 'A-1001' } });
    if (!result.isError) answer = 'cancelled';
  } catch {
    // a resilient agent keeps going
  } finally {
    await client.close();
  }
  expect(answer).toBe('fallback');
}, 60000);
