// The ollama client's tool loop, streamed, against a stand-in Ollama server (OLLAMA_UPSTREAM): the
// driver runs it in record mode with no provider key, then replays the cassette with the server
// stopped and CI set.
const { expect, it } = require('./runner-globals.cjs');
const { Ollama } = require('ollama');
const { understudy } = require('jest-understudy');

const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
    },
  },
];

it('looks an order up and answers, over a recorded NDJSON stream', async () => {
  const client = new Ollama({ host: `${process.env.OLLAMA_UPSTREAM ?? 'http://127.0.0.1:9'}/ollama` });
  const run = await understudy.run(async () => {
    const messages = [{ role: 'user', content: 'Where is order A-1001?' }];
    for (let step = 0; step < 3; step++) {
      const message = { role: 'assistant', content: '', tool_calls: [] };
      for await (const part of await client.chat({ model: 'llama3.2', messages, tools, stream: true })) {
        message.content += part.message.content;
        message.tool_calls.push(...(part.message.tool_calls ?? []));
      }
      messages.push(message);
      if (message.tool_calls.length === 0) return message.content;
      for (const call of message.tool_calls)
        messages.push({ role: 'tool', tool_name: call.function.name, content: '{"status":"shipped"}' });
    }
    throw new Error('too many steps');
  });
  expect(run).toHaveCalledTool('lookup_order', { orderId: 'A-1001' });
  expect(run).toHaveFinalMessage('Here is the status: {"status":"shipped"}.');
});
