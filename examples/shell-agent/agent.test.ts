/**
 * A shell-script agent (agent.sh: curl and jq for the model, `understudy tool call` for its
 * tools), tested from Jest: the test serves its model and world (`understudy.serve()`), runs
 * the script inside `understudy.run()` with `served.env`, and asserts the trajectory, the
 * world's evidence (each command is an operation with `transport: 'cli'`) and its state.
 *
 * @understudy-world ../python-agent/orders.world.yaml
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type Served, script, understudy } from 'jest-understudy';
import { pathWithCli, runChild } from '../support/child';
import { REFUND_QUESTION, refundFlow } from '../support/orders';

let served: Served;
beforeAll(async () => {
  served = await understudy.serve();
});

function agent() {
  return async () => {
    const result = await runChild('bash', [join(__dirname, 'agent.sh'), REFUND_QUESTION], {
      env: { ...served.env, PATH: pathWithCli() },
    });
    if (result.code !== 0) throw new Error(`agent.sh exited ${result.code}:\n${result.stderr}`);
    return result.stdout;
  };
}

describe('a shell agent whose tools are `understudy tool call`', () => {
  it('refunds through the world, with an idempotency key on the refund', async () => {
    understudy.model.use(refundFlow('Order A-1001 is refunded ($89).'));

    const run = await understudy.run(agent());

    expect(run.output).toBe('Order A-1001 is refunded ($89).\n');
    expect(run).toHaveCalledToolSequence(['get_order', 'refund_order', 'send_email']);
    expect(run.toolCalls[0].result).toMatchObject({ id: 'A-1001', paid: 89 });
    expect(run.operations.map((op) => [op.transport, op.operationId, op.idempotencyKey])).toEqual([
      ['cli', 'orders.get', undefined],
      ['cli', 'orders.refund', 'refund-A-1001'],
      ['cli', 'email.send', undefined],
    ]);
    expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
  }, 30_000);

  it("hands a failed tool's envelope back to the model", async () => {
    // Refunded already, by another desk: the agent's refund is a CONFLICT.
    await fetch(`${served.urls.base}/tools/orders/orders.refund`, {
      method: 'POST',
      body: JSON.stringify({ input: { id: 'A-1001', amount: 89 } }),
    });
    understudy.model.use(
      script()
        .user(REFUND_QUESTION)
        .callsTool('get_order', { id: 'A-1001' })
        .callsTool('refund_order', { id: 'A-1001', amount: 89 })
        .replies('Order A-1001 was already refunded.'),
    );

    const run = await understudy.run(agent());

    expect(run).toHaveCalledToolSequence(['get_order', 'refund_order']);
    expect(run.toolCalls[1].result).toEqual({
      failed: expect.objectContaining({ code: 'CONFLICT', status: 409 }),
    });
    expect(run).toHaveFinalMessage('Order A-1001 was already refunded.');
  }, 30_000);
});
