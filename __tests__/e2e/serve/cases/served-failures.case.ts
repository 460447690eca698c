/**
 * Children that swallow what they got: each test must still fail (see ../serve-failures.test.ts).
 *
 * @understudy-world ../../../../examples/python-agent/orders.world.yaml
 */
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { pathWithCli, runChild } from '../../../../examples/support/child';

const CHILD = join(__dirname, '..', 'child-agent.cjs');

it('a child that swallows an unmatched model call', async () => {
  const served = await understudy.serve();
  understudy.model.use([{ match: { userMessage: 'known question' }, response: { content: 'known answer' } }]);
  const run = await understudy.run(() =>
    runChild(process.execPath, [CHILD, 'swallow', 'a question nobody scripted'], { env: served.env }),
  );
  expect(run.output?.stdout).toBe('fallback\n');
});

it('a child that calls a path the port does not serve', async () => {
  const served = await understudy.serve();
  const result = await runChild(process.execPath, [CHILD, 'get', `${served.urls.base}/v1/models`], {
    env: served.env,
  });
  expect(result.stdout).toBe('404\n');
});

it('a child that outlives its run', async () => {
  const served = await understudy.serve();
  understudy.model.use([{ match: { userMessage: 'late question' }, response: { content: 'late answer' } }]);
  let child: ReturnType<typeof runChild> | undefined;
  await understudy.run(() => {
    child = runChild(process.execPath, [CHILD, 'late', 'late question'], { env: served.env });
  });
  expect((await child)?.stdout).toBe('fallback\n');
});

it('a shell agent that swallows a failed tool call of an operation the world does not have', async () => {
  const served = await understudy.serve();
  const script = 'understudy tool call orders/orders.cancel --json \'{"id":"A-1001"}\' || echo swallowed';
  const result = await runChild('bash', ['-c', script], { env: { ...served.env, PATH: pathWithCli() } });
  expect(result.stdout).toBe('swallowed\n');
});
