/**
 * A Python agent (examples/python-agent/agent.py, written here by the driver) on the served
 * port, from the installed package: a 3-step tool loop replayed, its trajectory asserted; and
 * a child whose failure the test ignores, which must still fail it.
 * @understudy-world ./serve-orders.world.yaml
 */
const { execFile } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { beforeAll, expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');

const QUESTION = 'Please refund order A-1001, the shoes came apart.';
// The Python the driver found (UNDERSTUDY_PYTHON, the CI's virtualenv), written beside the case.
const written = join(__dirname, 'serve-python.path');
const python = existsSync(written)
  ? readFileSync(written, 'utf8')
  : process.env.UNDERSTUDY_PYTHON || 'python3';

function runAgent(env, question = QUESTION) {
  return new Promise((resolve) => {
    execFile(
      python,
      [join(__dirname, 'serve-agent.py'), question],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

it('a Python agent replays a 3-step tool loop', async () => {
  understudy.model.use(
    script()
      .user(QUESTION)
      .callsTool('get_order', { id: 'A-1001' })
      .callsTool('refund_order', { id: 'A-1001', amount: 89 })
      .callsTool('send_email', { orderId: 'A-1001', text: 'Refunded.' })
      .replies('Order A-1001 is refunded.'),
  );
  const run = await understudy.run(() =>
    runAgent({ ...served.env, ORDERS_API_URL: served.urls.world.orders }),
  );
  expect(run.output.code).toBe(0);
  expect(run.output.stdout).toMatch(/^client: (openai|urllib)\n/);
  expect(run).toHaveCalledToolSequence(['get_order', 'refund_order', 'send_email']);
  expect(run).toHaveFinalMessage('Order A-1001 is refunded.');
  expect(understudy.world.state.orders.refunds).toEqual({ 'A-1001': { id: 'A-1001', amount: 89 } });
}, 60000);

it('no false green: a Python agent the model cannot answer, whose exit code the test ignores', async () => {
  const run = await understudy.run(() =>
    runAgent({ ...served.env, ORDERS_API_URL: served.urls.world.orders }, 'Cancel my subscription'),
  );
  expect(run.output.code).not.toBe(0);
}, 60000);
