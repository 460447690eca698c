// Tool-calling agents on the official OpenAI and Anthropic SDKs for the truthful-* cases. What an
// agent does with the tools the model asks for is its `policy`:
//   'run'          runs each through the world (mockTool) and sends the result back;
//   'drop'         returns at once, running none (the bug a "called" matcher must catch);
//   'run-and-stop' runs them through the world and returns without telling the model (a tool that
//                  ends the run, as the Agents SDK's stopAtToolNames does).
const Anthropic = require('@anthropic-ai/sdk');
const OpenAI = require('openai');
const { mockTool, understudy } = require('jest-understudy');

const OPERATIONS = {
  get_weather: { packageId: 'weather', operationId: 'weather.get' },
  lookup_account: { packageId: 'accounts', operationId: 'accounts.get' },
  delete_account: { packageId: 'accounts', operationId: 'accounts.delete' },
};

const schema = { type: 'object', properties: {}, additionalProperties: true };

function runTool(name, args) {
  const tool = mockTool(understudy.world.bind({ actorId: 'agent' }), {
    mode: 'sync',
    operation: OPERATIONS[name],
  });
  try {
    return JSON.stringify(tool(args));
  } catch (error) {
    return JSON.stringify({ error: error.envelope?.code ?? String(error) });
  }
}

/** The OpenAI Chat Completions loop; `baseURL` points it at the served port. */
async function openaiAgent(text, { policy = 'run', stream = false, baseURL } = {}) {
  const client = new OpenAI({ maxRetries: 0, ...(baseURL && { baseURL }) });
  const tools = Object.keys(OPERATIONS).map((name) => ({
    type: 'function',
    function: { name, parameters: schema },
  }));
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 6; turn++) {
    const params = { model: 'gpt-4o-mini', messages, tools };
    const completion = stream
      ? await client.chat.completions.stream(params).finalChatCompletion()
      : await client.chat.completions.create(params);
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    if (policy === 'drop') return 'done';
    for (const call of message.tool_calls) {
      const content = runTool(call.function.name, JSON.parse(call.function.arguments));
      if (policy === 'run') messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
    if (policy === 'run-and-stop') return 'done';
  }
  return undefined;
}

/** The same loop on Anthropic Messages. */
async function anthropicAgent(text, { policy = 'run', stream = false } = {}) {
  const client = new Anthropic({ maxRetries: 0 });
  const tools = Object.keys(OPERATIONS).map((name) => ({ name, input_schema: schema }));
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 6; turn++) {
    const params = { model: 'claude-sonnet-4-5', max_tokens: 512, messages, tools };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return message.content.map((block) => block.text ?? '').join('');
    if (policy === 'drop') return 'done';
    const results = uses.map((use) => ({
      type: 'tool_result',
      tool_use_id: use.id,
      content: runTool(use.name, use.input),
    }));
    if (policy === 'run-and-stop') return 'done';
    messages.push({ role: 'user', content: results });
  }
  return undefined;
}

module.exports = { anthropicAgent, openaiAgent };
