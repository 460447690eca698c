// A small agent loop (one streamed call, one plain) recorded against a stand-in provider, then
// replayed from its cassette.
// WRITES_UPSTREAM is the provider's base URL (configured as an OpenAI base URL, so replay
// serves it); WRITES_OUT is where each phase leaves a summary of its run for comparison.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
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
  const client = new OpenAI({ baseURL: `${process.env.WRITES_UPSTREAM}/openai/v1`, maxRetries: 0 });
  const messages = [
    { role: 'system', content: 'You are terse. Look orders up before answering.' },
    { role: 'user', content: question },
  ];
  for (let step = 0; step < 4; step++) {
    // The first call streams (recording reads the stream back), the next ones do not.
    const reply =
      step === 0
        ? await client.chat.completions.stream({ model: 'gpt-4o', messages, tools }).finalChatCompletion()
        : await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const message = reply.choices[0].message;
    if (!message.tool_calls?.length) return message.content;
    messages.push(message);
    for (const call of message.tool_calls) {
      const { orderId } = JSON.parse(call.function.arguments);
      // The tool result (and so the model's answer, which quotes it) carries the key too.
      const note = `debug ${process.env.OPENAI_API_KEY}`;
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify({ orderId, status: 'shipped', note }),
      });
    }
  }
  throw new Error('the agent did not finish');
}

it('looks an order up and answers', async () => {
  // A careless prompt carries the key in use (set only while recording): the cassette must not.
  const run = await understudy.run(() =>
    agent(`where is order A-1001? (debug ${process.env.OPENAI_API_KEY})`),
  );
  expect(run.error).toBeUndefined();
  expect(run.toolsCalled).toEqual(['lookup_order']);
  expect(run.output).toContain('shipped');
  writeFileSync(
    join(process.env.WRITES_OUT, `${process.env.WRITES_PHASE}.json`),
    JSON.stringify({ output: run.output, toolCalls: run.toolCalls.map((t) => [t.name, t.id, t.arguments]) }),
  );
});
