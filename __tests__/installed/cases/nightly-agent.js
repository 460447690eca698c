// The order agent of the nightly-*.case.js files: asks the model where an order is, runs the
// tools it asks for (locally), and sends the results back until the model answers in text.
// OpenAI Chat Completions (plain) or Anthropic Messages (streamed), against the stand-in
// provider at NIGHTLY_UPSTREAM; the model name picks how the stand-in behaves.
const schema = (properties) => ({ type: 'object', properties });
const TOOLS = [
  { name: 'lookup_order', description: 'Find an order', parameters: schema({ orderId: { type: 'string' } }) },
  {
    name: 'lookup_refund',
    description: 'Find a refund',
    parameters: schema({ orderId: { type: 'string' } }),
  },
  {
    name: 'find_order',
    description: 'Find an order (v2)',
    parameters: schema({ order_id: { type: 'string' } }),
  },
];
const run = (name, args) => JSON.stringify({ tool: name, args, status: 'shipped' });

async function openaiAgent(model, question) {
  const OpenAI = require('openai').default ?? require('openai');
  const client = new OpenAI({ baseURL: `${process.env.NIGHTLY_UPSTREAM}/openai/v1`, maxRetries: 0 });
  const messages = [{ role: 'user', content: question }];
  const tools = TOOLS.map((t) => ({ type: 'function', function: t }));
  for (let turn = 0; turn < 4; turn++) {
    const res = await client.chat.completions.create({ model, messages, tools });
    const message = res.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls)
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: run(call.function.name, JSON.parse(call.function.arguments)),
      });
  }
  return undefined;
}

async function anthropicAgent(model, question) {
  const Anthropic = require('@anthropic-ai/sdk').default ?? require('@anthropic-ai/sdk');
  const client = new Anthropic({ baseURL: `${process.env.NIGHTLY_UPSTREAM}/anthropic`, maxRetries: 0 });
  const messages = [{ role: 'user', content: question }];
  const tools = TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  for (let turn = 0; turn < 4; turn++) {
    const message = await client.messages.stream({ model, max_tokens: 256, messages, tools }).finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (uses.length === 0) return message.content.find((b) => b.type === 'text')?.text;
    messages.push({
      role: 'user',
      content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: run(u.name, u.input) })),
    });
  }
  return undefined;
}

module.exports = { openaiAgent, anthropicAgent };
