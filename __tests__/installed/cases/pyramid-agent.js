// A plain OpenAI Chat tool loop the pyramid-* cases run: `tools` maps tool names to functions.
const OpenAI = require('openai');

const MODEL = 'gpt-4o-mini';

/** Runs the loop; a tool error goes back to the model as { error } unless `onToolError` is 'throw'. */
async function toolLoop({ user, tools, onToolError = 'report', client = new OpenAI() }) {
  const messages = [{ role: 'user', content: user }];
  const offered = Object.keys(tools).map((name) => ({
    type: 'function',
    function: { name, parameters: { type: 'object' } },
  }));
  for (let step = 0; step < 6; step++) {
    const completion = await client.chat.completions.create({ model: MODEL, messages, tools: offered });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      let content;
      try {
        content = await tools[call.function.name](JSON.parse(call.function.arguments || '{}'));
      } catch (error) {
        if (onToolError === 'throw') throw error;
        content = { error: error.code || error.message };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
  throw new Error('the agent did not finish in 6 steps');
}

module.exports = { toolLoop, MODEL };
