/**
 * @understudy-world ./reported-outcomes.world.yaml
 */
// An agent's tool failure must not pass for a success: an in-process tool that answers with an
// error object, and a mockTool whose error builder builds nothing while the agent catches it.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { mockTool, script, understudy } = require('jest-understudy');

const ISSUE = { packageId: 'refunds', operationId: 'refunds.issue' };
const tools = [
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    },
  },
];

/** A Chat Completions tool loop that runs its one tool with `issue` and says what it got back. */
async function agent(issue) {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Refund order 7' }];
  for (;;) {
    const { choices } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
    const message = choices[0].message;
    messages.push(message);
    if (!message.tool_calls) return message.content;
    for (const call of message.tool_calls) {
      let content;
      try {
        content = JSON.stringify(await issue(JSON.parse(call.function.arguments)));
      } catch (error) {
        content = JSON.stringify({ error: error.message });
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
}

const loop = () =>
  script().user('Refund order 7').callsTool('issue_refund', { orderId: '7' }).replies('Done.');

it('an own tool that answered with an error object ended in error', async () => {
  understudy.model.use(loop());
  const run = await understudy.run(() => agent(async () => ({ error: 'the order is locked' })));
  expect(run).toHaveCalledTool('issue_refund', { orderId: '7' }, { outcome: 'error' });
  expect(run).not.toHaveCalledTool('issue_refund', { orderId: '7' }, { outcome: 'ok' });
});

it('must fail: an own tool that answered with an error object asserted ok', async () => {
  understudy.model.use(loop());
  const run = await understudy.run(() => agent(async () => ({ error: 'the order is locked' })));
  expect(run).toHaveCalledTool('issue_refund', { orderId: '7' }, { outcome: 'ok' });
});

it('must fail: a mockTool error builder that builds nothing, the agent catching what it throws', async () => {
  understudy.world.reset({
    scenario: { toolOverrides: [{ id: 'busy', operation: ISSUE, outcome: { kind: 'error', code: 'BUSY' } }] },
  });
  const issue = mockTool(understudy.world.bind(), {
    mode: 'async',
    operation: ISSUE,
    error: (envelope) => {
      new Error(envelope.code);
    },
  });
  understudy.model.use(loop());
  const run = await understudy.run(() => agent(issue));
  expect(run).toHaveFinalMessage('Done.');
});
