/**
 * `understudy mcp stdio --package <id>` as a process, from source, spawned by
 * `@modelcontextprotocol/sdk`'s stdio client transport with the served port's environment: the
 * package's tools, their calls as world operations of the run, errors as MCP errors.
 *
 * @understudy-world ../../../examples/python-agent/orders.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Served, understudy } from 'jest-understudy';
import { runChild } from '../../../examples/support/child';
import { SOURCE_CLI } from '../../support/source';

const root = resolve(__dirname, '..', '..', '..');
const CLI = SOURCE_CLI;

let served: Served;
beforeAll(async () => {
  served = await understudy.serve();
});

/** A connected client of the stdio server, started with the environment read now (inside a run: its token). */
async function connect(extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...CLI, 'mcp', 'stdio', '--package', 'orders', ...extra],
    env: { ...(process.env as Record<string, string>), ...served.env, NODE_OPTIONS: '' },
    cwd: root,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('understudy mcp stdio', () => {
  it("offers the package's tools, and each call is a world operation of the run", async () => {
    const run = await understudy.run(async () => {
      const client = await connect();
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        const order = await client.callTool({ name: 'get_order', arguments: { id: 'A-1001' } });
        const refund = await client.callTool({
          name: 'refund_order',
          arguments: { id: 'A-1001', amount: 89 },
        });
        const again = await client.callTool({
          name: 'refund_order',
          arguments: { id: 'A-1001', amount: 89 },
        });
        return { tools, order: order.content, refund: refund.isError ?? false, again: again.isError };
      } finally {
        await client.close();
      }
    });

    expect(run.output).toEqual({
      tools: ['get_order', 'refund_order', 'send_email'],
      order: [
        {
          type: 'text',
          text: JSON.stringify({ id: 'A-1001', item: 'trail shoes', paid: 89, status: 'delivered' }),
        },
      ],
      refund: false,
      again: true,
    });
    expect(run.operations.map((op) => `${op.transport} ${op.operationId} ${op.outcome.kind}`)).toEqual([
      'mcp orders.get ok',
      'mcp orders.refund ok',
      'mcp orders.refund error',
    ]);
    expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
  }, 30_000);

  it('calls as the --actor it was started with', async () => {
    const client = await connect(['--actor', 'intern']);
    try {
      const denied = await client.callTool({ name: 'refund_order', arguments: { id: 'A-1001', amount: 89 } });
      expect(denied.isError).toBe(true);
      expect(JSON.stringify(denied.content)).toContain('PERMISSION_DENIED');
    } finally {
      await client.close();
    }
    expect(understudy.world.operations.map((op) => op.actorId)).toEqual(['intern']);
  }, 30_000);

  it('exits 3 without a served port, and 2 without --package', async () => {
    const unset = await runChild(process.execPath, [...CLI, 'mcp', 'stdio', '--package', 'orders'], {
      env: { NODE_OPTIONS: '', UNDERSTUDY_SERVE_URL: '' },
      cwd: root,
    });
    expect(unset.code).toBe(3);
    expect(unset.stderr).toContain('UNDERSTUDY_SERVE_URL is not set');
    const usage = await runChild(process.execPath, [...CLI, 'mcp', 'stdio'], {
      env: { NODE_OPTIONS: '' },
      cwd: root,
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '--package <id>' not specified");
  }, 30_000);
});
