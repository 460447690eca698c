/**
 * An agent whose MCP server is a command (`understudy mcp stdio --package orders`), as coding and
 * desktop agents are configured: the test serves its world (`understudy.serve()`), hands the
 * agent a server config with `served.env`, replays the model in-process, and asserts the
 * trajectory, the operations the MCP calls made and the world's state.
 *
 * @understudy-world ../python-agent/orders.world.yaml
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Served, understudy } from 'jest-understudy';
import { pathWithCli } from '../support/child';
import { REFUND_EMAIL, REFUND_QUESTION, refundFlow } from '../support/orders';
import { type McpServerConfig, runMcpAgent } from './agent';

let served: Served;
beforeAll(async () => {
  served = await understudy.serve();
});

/** The agent's MCP configuration, read inside the run (so its calls carry the run's token). */
function servers(): Record<string, McpServerConfig> {
  return {
    orders: {
      command: 'understudy',
      args: ['mcp', 'stdio', '--package', 'orders'],
      env: { ...(process.env as Record<string, string>), ...served.env, PATH: pathWithCli() },
    },
  };
}

describe('an agent that spawns its MCP server by command', () => {
  it("gets the world's tools, and refunds through them", async () => {
    understudy.model.use(refundFlow('Order A-1001 is refunded ($89).'));

    const run = await understudy.run(() => runMcpAgent(REFUND_QUESTION, servers()));

    expect(run).toHaveCalledToolSequence(['get_order', 'refund_order', 'send_email']);
    expect(run).toHaveFinalMessage('Order A-1001 is refunded ($89).');
    expect(run.toolCalls[0].result).toMatchObject({ id: 'A-1001', paid: 89 });
    expect(run.operations.map((op) => `${op.transport} ${op.operationId}`)).toEqual([
      'mcp orders.get',
      'mcp orders.refund',
      'mcp email.send',
    ]);
    expect(understudy.world.state.orders.emails).toEqual({
      'mail-1': { id: 'mail-1', orderId: 'A-1001', text: REFUND_EMAIL },
    });
  }, 30_000);
});
