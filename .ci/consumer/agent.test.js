// A consumer's view: CommonJS, no transform of ours, the preset from the installed tarball.
const { describe, expect, it } = require('@jest/globals');
const OpenAI = require('openai');
const { understudy, script, createAgentHarness } = require('jest-understudy');

const tools = [
  { type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { id: { type: 'string' } } } } },
  { type: 'function', function: { name: 'refund', parameters: { type: 'object', properties: { id: { type: 'string' } } } } },
];

async function supportAgent(question, { stream = false } = {}) {
  const client = new OpenAI.default ? new OpenAI.default() : new OpenAI();
  const messages = [{ role: 'user', content: question }];
  for (let i = 0; i < 5; i++) {
    const completion = stream
      ? await client.chat.completions.stream({ model: 'gpt-4o-mini', messages, tools }).finalChatCompletion()
      : await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments);
      const result = call.function.name === 'lookup_order' ? { id: args.id, paid: 30 } : { refunded: args.id };
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('no answer');
}

const refund = script()
  .user('Refund order 42')
  .callsTool('lookup_order', { id: '42' })
  .callsTool('refund', { id: '42' })
  .replies('Order 42 was refunded.');

describe('an installed jest-understudy', () => {
  it.each([false, true])('replays a tool loop (stream: %s)', async (stream) => {
    understudy.model.use(refund);
    const run = await understudy.run(() => supportAgent('Refund order 42 please', { stream }));
    expect(run).toHaveCalledToolSequence(['lookup_order', 'refund']);
    expect(run).toHaveCalledTool('refund', { id: '42' });
    expect(run).toHaveFinalMessage('refunded');
    expect(run).toHaveTerminalState('succeeded');
  });

  it('serves config-level fixture files through a harness', async () => {
    const harness = createAgentHarness({ agent: (input) => supportAgent(input) });
    const run = await harness.run('What is the shipping status of order 7?');
    expect(run.finalMessage).toBe('Order 7 ships tomorrow.');
    await harness.close();
  });
});
