// The agents of the native-fixtures cases: whole tool loops on the official OpenAI and Anthropic
// SDKs whose get_note tool is whatever the test hands them (a world operation through mockTool).
const Anthropic = require('@anthropic-ai/sdk');
const OpenAI = require('openai');

const schema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

/**
 * An OpenAI Chat Completions tool loop on `client`: each tool call goes to `callTool` with its
 * arguments; `drop` ends the loop at the first tool call, as a wrong agent would.
 */
async function openaiToolLoop(client, text, tools, callTool, { stream = false, drop = false } = {}) {
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 4; turn++) {
    const params = { model: 'gpt-4o-mini', messages, tools };
    const completion = stream
      ? await client.chat.completions.stream(params).finalChatCompletion()
      : await client.chat.completions.create(params);
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    if (drop) return 'I looked it up.';
    for (const call of message.tool_calls)
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(await callTool(JSON.parse(call.function.arguments))),
      });
  }
  return undefined;
}

function openaiAgent(text, getNote, options) {
  const tools = [{ type: 'function', function: { name: 'get_note', parameters: schema } }];
  return openaiToolLoop(new OpenAI({ maxRetries: 0 }), text, tools, getNote, options);
}

async function anthropicAgent(text, getNote) {
  const client = new Anthropic({ maxRetries: 0 });
  const tools = [{ name: 'get_note', input_schema: schema }];
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 4; turn++) {
    const message = await client.messages
      .stream({ model: 'claude-sonnet-4-5', max_tokens: 512, messages, tools })
      .finalMessage();
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return message.content.map((block) => block.text ?? '').join('');
    messages.push({
      role: 'user',
      content: await Promise.all(
        uses.map(async (use) => ({
          type: 'tool_result',
          tool_use_id: use.id,
          content: JSON.stringify(await getNote(use.input)),
        })),
      ),
    });
  }
  return undefined;
}

module.exports = { openaiAgent, anthropicAgent, openaiToolLoop };
