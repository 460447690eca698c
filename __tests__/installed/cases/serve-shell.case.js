/**
 * A shell agent (examples/shell-agent/agent.sh, written here by the driver) whose tools are the
 * installed `understudy tool call`, on the served port; and a shell that swallows a failed call
 * of an operation the world does not have, which must still fail its test.
 * @understudy-world ./serve-orders.world.yaml
 */
const { execFile } = require('node:child_process');
const { delimiter, join } = require('node:path');
const { beforeAll, expect, it } = require('./runner-globals.cjs');
const { script, understudy } = require('jest-understudy');

const QUESTION = 'Please refund order A-1001, the shoes came apart.';
// The consumer project's bin folder, where npm put the installed package's `understudy`.
const PATH = `${join(__dirname, '..', '..', 'node_modules', '.bin')}${delimiter}${process.env.PATH}`;

function shell(args, env) {
  return new Promise((resolve) => {
    execFile('bash', args, { env: { ...process.env, ...env, PATH } }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }),
    );
  });
}

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

it('a shell agent calls its tools with understudy tool call', async () => {
  understudy.model.use(
    script()
      .user(QUESTION)
      .callsTool('get_order', { id: 'A-1001' })
      .callsTool('refund_order', { id: 'A-1001', amount: 89 })
      .replies('Order A-1001 is refunded.'),
  );
  const run = await understudy.run(() => shell([join(__dirname, 'serve-agent.sh'), QUESTION], served.env));
  expect(run.output).toEqual({ code: 0, stdout: 'Order A-1001 is refunded.\n', stderr: '' });
  expect(run).toHaveCalledToolSequence(['get_order', 'refund_order']);
  expect(run.operations.map((op) => `${op.transport} ${op.operationId} ${op.idempotencyKey}`)).toEqual([
    'cli orders.get undefined',
    'cli orders.refund refund-A-1001',
  ]);
}, 60000);

it('no false green: a shell that swallows a call of an operation the world does not have', async () => {
  const result = await shell(
    ['-c', 'understudy tool call orders/orders.cancel --json \'{"id":"A-1001"}\' || echo swallowed'],
    served.env,
  );
  expect(result.stdout).toBe('swallowed\n');
}, 60000);
