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
    // The API refuses an empty `tools` list: a loop with no tools leaves it out.
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages,
      ...(offered.length > 0 && { tools: offered }),
    });
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

/** The same loop on the Responses API: function_call items out, function_call_output items back. */
async function responsesLoop({ user, tools, client = new OpenAI() }) {
  const input = [{ role: 'user', content: user }];
  const offered = Object.keys(tools).map((name) => ({
    type: 'function',
    name,
    parameters: { type: 'object' },
  }));
  for (let step = 0; step < 6; step++) {
    const response = await client.responses.create({ model: MODEL, input, tools: offered });
    const calls = response.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) return response.output_text;
    input.push(...response.output);
    for (const call of calls) {
      const result = await tools[call.name](JSON.parse(call.arguments || '{}'));
      input.push({ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(result) });
    }
  }
  throw new Error('the agent did not finish in 6 steps');
}

/** The loop for a protocol: the portability cases' agent. */
const loopFor = (protocol) => (protocol === 'openai.responses' ? responsesLoop : toolLoop);

module.exports = { toolLoop, responsesLoop, loopFor, MODEL };
