/**
 * test.concurrent: a test file has one mock model and one world, so jest-understudy refuses
 * concurrent tests at their first use of it, and each refusal fails its own test (never passes one
 * on another test's fixture). Concurrent tests that do not use it, and the tests after them, run
 * as usual.
 * @understudy-world ./ownership.world.yaml
 */
const { beforeAll, expect, it, test } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { mockTool, script, understudy } = require('jest-understudy');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const { model } = understudy;
const issue = mockTool(understudy.world.bind({ actorId: 'agent' }), {
  mode: 'async',
  operation: { packageId: 'refunds', operationId: 'refunds.issue' },
  input: (orderId) => ({ orderId }),
});

/** An OpenAI tool loop: issues a refund when the model asks for it. */
async function agent(question) {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: question }];
  const tools = [
    {
      type: 'function',
      function: {
        name: 'issue_refund',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
      },
    },
  ];
  for (let step = 0; step < 4; step++) {
    const message = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools }))
      .choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      const refund = await issue(JSON.parse(call.function.arguments).orderId);
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(refund) });
    }
  }
}

test.concurrent('a concurrent test that registers its fixtures and runs the agent', async () => {
  understudy.model.use(
    script().user('refund A-1').callsTool('issue_refund', { orderId: 'A-1' }).replies('Refunded.'),
  );
  await sleep(30);
  const run = await understudy.run(() => agent('refund A-1'));
  expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-1' });
});

test.concurrent('a concurrent guardrail: the agent must not refund A-2', async () => {
  const run = await understudy.run(() => agent('refund A-2 please'));
  expect(run).not.toHaveCalledTool('issue_refund');
});

test.concurrent('a concurrent test that registers fixtures on a model it kept', async () => {
  model.use(script().user('refund A-3').replies('No.'));
});

test.concurrent('a concurrent agent that swallows its refused model call', async () => {
  await sleep(10);
  const answer = await agent('refund A-4').catch((error) => error.status);
  expect(answer).toBe(409);
});

test.concurrent('a concurrent tool call through a mockTool made at file level', async () => {
  await expect(issue('A-5')).rejects.toMatchObject({ code: 'CONCURRENT_TEST' });
});

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

test.concurrent('a concurrent test that reads the URLs of a port served in beforeAll', async () => {
  expect(served.env.OPENAI_BASE_URL).toContain('/openai/v1');
});

test.concurrent('a concurrent test whose request to a host nothing serves is refused', async () => {
  await sleep(20);
  expect(await fetch('https://tracker.invalid/collect').catch(() => 'failed')).toBe('failed');
});

test.concurrent('a concurrent test that does not use jest-understudy', async () => {
  await sleep(10);
  expect(1 + 1).toBe(2);
});

it('a test after them uses the model and the world as usual', async () => {
  understudy.model.use(
    script().user('refund A-6').callsTool('issue_refund', { orderId: 'A-6' }).replies('Refunded.'),
  );
  const run = await understudy.run(() => agent('refund A-6'));
  expect(run).toHaveCalledTool('issue_refund', { orderId: 'A-6' });
  expect(Object.values(understudy.world.state.refunds.refunds).map((r) => r.orderId)).toEqual(['A-6']);
  expect(understudy.model.calls).toHaveLength(2);
});
