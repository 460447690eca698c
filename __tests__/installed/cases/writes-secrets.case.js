// A failing test with keys planted everywhere a careless test could put one: the test name,
// the system prompt, the user text, a tool argument, the agent's error, an unmatched request.
// ANTHROPIC_API_KEY holds a gateway key of no known shape; WRITES_HEADER holds a key the
// product can only learn from the request that carried it (the client's apiKey header).
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

const KEY = process.env.ANTHROPIC_API_KEY;
const HEADER_KEY = process.env.WRITES_HEADER;

const tools = [
  {
    type: 'function',
    function: { name: 'lookup', parameters: { type: 'object', properties: { note: { type: 'string' } } } },
  },
];

async function agent(client) {
  const messages = [
    { role: 'system', content: `You are terse. Our gateway key is ${KEY}.` },
    { role: 'user', content: `look the order up with ${KEY}` },
  ];
  const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
  const call = first.choices[0].message.tool_calls[0];
  messages.push(first.choices[0].message, {
    role: 'tool',
    tool_call_id: call.id,
    content: JSON.stringify({ seen: `${KEY} and ${HEADER_KEY}` }),
  });
  await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
  throw new Error(`the gateway refused (key: ${KEY}) then gave up; header ${HEADER_KEY}.`);
}

it(`fails with the key ${KEY} in its name`, async () => {
  understudy.model.use(
    script()
      .user(`look the order up with ${KEY}`)
      .callsTool('lookup', { note: `use ${KEY} with ${HEADER_KEY}` })
      .replies(`done with ${KEY}`),
  );
  const client = new OpenAI({ apiKey: HEADER_KEY, maxRetries: 0 });
  const run = await understudy.run(() => agent(client));
  expect(run.error).toBeDefined();
  // No fixture answers this: the product's own message names the request's user text.
  await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `unmatched ${KEY} ${HEADER_KEY}` }] })
    .catch(() => undefined);
  expect(run).toHaveCalledTool('lookup', { note: `another ${KEY}` });
});
