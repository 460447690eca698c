/**
 * A Python agent, tested from Jest: the test serves its model and world on a loopback port
 * (`understudy.serve()`), starts `python agent.py` with `served.env`, and asserts what the
 * agent did with the usual matchers: its model calls and tool calls are in the run, its HTTP
 * calls to the order desk are in the world's evidence.
 *
 * @understudy-world ./orders.world.yaml
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Served, understudy } from 'jest-understudy';
import { python, runChild } from '../support/child';
import { REFUND_QUESTION, refundFlow } from '../support/orders';

const refund = refundFlow('Order A-1001 is refunded ($89) and the customer has been emailed.');

/** Which client the agent will use here: the official SDK when the Python has it, else urllib. */
function installedClient(): 'openai' | 'urllib' {
  try {
    const probe = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('openai') else 1)";
    execFileSync(python(), ['-c', probe], { stdio: 'ignore', timeout: 30_000 });
    return 'openai';
  } catch {
    return 'urllib';
  }
}
const CLIENT = installedClient();
// Importing the openai package takes Python seconds on a busy machine.
const SLOW = 60_000;

let served: Served;
beforeAll(async () => {
  served = await understudy.serve();
});

/** The agent, run as a child process inside the run (so the URLs it gets carry the run's token). */
function agent(env: Record<string, string> = {}) {
  return async () => {
    const result = await runChild(python(), [join(__dirname, 'agent.py'), REFUND_QUESTION], {
      env: { ...served.env, ORDERS_API_URL: served.urls.world.orders, ...env },
    });
    if (result.code !== 0) throw new Error(`agent.py exited ${result.code}:\n${result.stderr}`);
    return result.stdout;
  };
}

// Each test starts a Python process (and imports the openai package): seconds on a loaded machine.
jest.setTimeout(30_000);

describe('a Python agent on the served port', () => {
  it(
    `refunds through a 3-step tool loop (client: ${CLIENT})`,
    async () => {
      understudy.model.use(refund);

      const run = await understudy.run(agent());

      expect(run.output).toContain(`client: ${CLIENT}`);
      expect(run).toHaveCalledToolSequence(['get_order', 'refund_order', 'send_email']);
      expect(run).toHaveCalledTool('refund_order', { id: 'A-1001', amount: 89 });
      expect(run).toHaveFinalMessage(/is refunded/);
      expect(run.modelCalls).toHaveLength(4);
      // The tools ran against the world over its HTTP routes, inside this run.
      expect(run.operations.map((op) => `${op.transport} ${op.operationId}`)).toEqual([
        'http orders.get',
        'http orders.refund',
        'http email.send',
      ]);
      expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
    },
    SLOW,
  );

  it(
    'runs the same loop with the standard library alone (client: urllib)',
    async () => {
      understudy.model.use(refund);

      const run = await understudy.run(agent({ UNDERSTUDY_AGENT_CLIENT: 'urllib' }));

      expect(run.output).toContain('client: urllib');
      expect(run).toHaveCalledToolSequence(['get_order', 'refund_order', 'send_email']);
      expect(run).toHaveFinalMessage(/is refunded/);
    },
    SLOW,
  );
});
