// A small tool-calling agent on the OpenAI SDK: each tool runs through mockTool against the world,
// and a failed tool goes back to the model as an error result (the agent carries on).
const OpenAI = require('openai');
const { mockTool, script, understudy } = require('jest-understudy');

const OPERATIONS = {
  page_oncall: { packageId: 'pager', operationId: 'pages.create' },
  lookup_order: { packageId: 'orders', operationId: 'orders.get' },
};

async function agent(text) {
  const client = new OpenAI();
  const binding = understudy.world.bind({ actorId: 'agent' });
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 6; turn++) {
    const res = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
    const message = res.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      const tool = mockTool(binding, { mode: 'sync', operation: OPERATIONS[call.function.name] });
      let content;
      try {
        content = JSON.stringify(tool(JSON.parse(call.function.arguments)));
      } catch (error) {
        content = JSON.stringify({ error: error.code ?? String(error) });
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  return undefined;
}

const TOOLS = Object.keys(OPERATIONS).map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {}, additionalProperties: true } },
}));

/** The run the matcher cases assert on: the order looked up, then two pages (the first fails BUSY). */
function pageRun() {
  understudy.model.use(
    script()
      .user('page the on-call about A-1')
      .callsTool('lookup_order', { id: 'A-1' })
      .callsTool('page_oncall', { id: 'p-1', text: 'A-1 is late' })
      .callsTool('page_oncall', { id: 'p-1', text: 'A-1 is late' })
      .replies('paged'),
  );
  return understudy.run(() => agent('page the on-call about A-1'));
}

module.exports = { agent, pageRun };
