/**
 * The CI surfaces (GitHub job summary and annotations, JUnit XML): a refund agent on the real
 * OpenAI SDK, one test that passes, one whose agent cancels where it should refund, and one whose
 * agent asks what no fixture answers. The driver (../ci-surfaces.test.ts) reads the lines where they
 * fail from the marker comments.
 */
const { describe, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');
const { GATEWAY_KEY } = require('./ci-surfaces-gateway.cjs');

const tool = (name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: { orderId: { type: 'string' } } } },
});
const TOOLS = [tool('lookup_order'), tool('issue_refund'), tool('cancel_order')];

async function refundAgent(question) {
  const client = new OpenAI({ defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY } });
  const messages = [{ role: 'user', content: question }];
  for (let step = 0; step < 6; step++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: true }) });
  }
  throw new Error('too many steps');
}

describe('refunds', () => {
  it('refunds a damaged order', async () => {
    understudy.model.use(
      script()
        .user('refund order A-1')
        .callsTool('lookup_order', { orderId: 'A-1' })
        .callsTool('issue_refund', { orderId: 'A-1' })
        .replies('Order A-1 is refunded.'),
    );
    const run = await understudy.run(() => refundAgent('Please refund order A-1'));
    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund']);
  });

  it('refunds instead of cancelling', async () => {
    understudy.model.use(
      script()
        .user('refund order A-2')
        .callsTool('lookup_order', { orderId: 'A-2' })
        .callsTool('cancel_order', { orderId: 'A-2' })
        .replies('Order A-2 is cancelled.'),
    );
    const run = await understudy.run(() => refundAgent('Please refund order A-2'));
    expect(run).toHaveCalledToolSequence(['lookup_order', 'issue_refund']); // ci-surfaces: failing expect
  });

  // An agent that asks what no fixture answers fails its test at the end, from no line of this file:
  // the annotation goes to the test's own line, the next one (ci-surfaces: test line below).
  it('asks what no fixture answers', async () => {
    understudy.model.use(script().user('refund order A-3').replies('Order A-3 is refunded.'));
    await understudy.run(() => refundAgent('Please cancel order A-9'), { expectError: true });
  });
});
