/**
 * MCP from the installed package: `@modelcontextprotocol/sdk`'s Client over Streamable HTTP and
 * over the in-process transport, under an OpenAI Chat agent that retries what the server calls
 * retryable; the model side is replayed.
 * @understudy-world ./mcp.world.yaml
 */
const { expect, it } = require('./runner-globals.cjs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { script, understudy } = require('jest-understudy');
const OpenAI = require('openai');

const SAVE = { id: 'note-9', text: 'nine' };

async function agent(client, task, toolName) {
  const openai = new OpenAI({ apiKey: 'test-key', maxRetries: 0 });
  const { tools } = await client.listTools();
  const messages = [{ role: 'user', content: task }];
  for (let turn = 0; turn < 4; turn++) {
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages,
      tools: tools.map((t) => ({ type: 'function', function: { name: t.name, parameters: t.inputSchema } })),
    });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      let result = await client.callTool({ name: toolName ?? call.function.name, arguments: args });
      if (result.isError && JSON.parse(result.content[0].text).retryable)
        result = await client.callTool({ name: call.function.name, arguments: args });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.content[0].text });
    }
  }
  throw new Error('the agent did not finish');
}

async function runWith(transport, toolName) {
  understudy.model.use(script().user('note-9').callsTool('save_note', SAVE).replies('Saved.'));
  return understudy.run(async () => {
    const client = new Client({ name: 'notes-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      return await agent(client, 'Save note-9 with the text "nine".', toolName);
    } catch (error) {
      return `gave up: ${error.message}`;
    } finally {
      await client.close();
    }
  });
}

function expectRetriedSave(run) {
  expect(run.output).toBe('Saved.');
  expect(run.operations.map((o) => [o.transport, o.outcome.kind, o.override?.id])).toEqual([
    ['mcp', 'error', 'busy-once'],
    ['mcp', 'ok', undefined],
  ]);
  expect(run.toolCalls[0].operations).toEqual([1, 2]);
  expect(understudy.world.state.notes.notes['note-9']).toEqual(SAVE);
}

it('an agent over Streamable HTTP retries a BUSY save', async () => {
  expectRetriedSave(
    await runWith(new StreamableHTTPClientTransport(new URL('https://notes.example.test/mcp'))),
  );
});

it('the same agent over the in-process transport', async () => {
  expectRetriedSave(await runWith(understudy.world.mcpTransport('notes')));
});

it('no false green: a call of a tool the server does not have fails the test, though the agent swallows it', async () => {
  const run = await runWith(understudy.world.mcpTransport('notes'), 'save_nothing');
  expect(run.output).toContain('gave up');
});
