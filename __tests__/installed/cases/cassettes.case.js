// A support agent recorded against a stand-in provider, re-recorded in part (-t), and replayed
// with a tool result that changed since. CASSETTES_UPSTREAM is the provider's base URL (an
// OpenAI base URL in the config, so replay serves it); CASSETTES_STATUS is what the tool returns.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Order status',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  },
];

async function agent(question) {
  const client = new OpenAI({ baseURL: `${process.env.CASSETTES_UPSTREAM}/openai/v1`, maxRetries: 0 });
  const messages = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: question },
  ];
  for (let step = 0; step < 4; step++) {
    const message = (await client.chat.completions.create({ model: 'gpt-4o', messages, tools })).choices[0]
      .message;
    if (!message.tool_calls?.length) return message.content;
    messages.push(message);
    for (const call of message.tool_calls) {
      const { orderId } = JSON.parse(call.function.arguments);
      const status = process.env.CASSETTES_STATUS || 'refunded';
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ orderId, status }) });
    }
  }
  throw new Error('the agent did not finish');
}

it('checks a refund', async () => {
  const run = await understudy.run(() => agent('Was order A-1001 refunded?'));
  expect(run.error).toBeUndefined();
  expect(run.toolsCalled).toEqual(['lookup_order']);
});

it('answers a note', async () => {
  const run = await understudy.run(() => agent(process.env.CASSETTES_NOTE || 'Thanks!'));
  expect(run.output).toMatch(/^You said: /);
});
