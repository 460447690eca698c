// A Vitest consumer's view: an ES module test file, the plugin from the installed tarball, a
// whole tool loop on the OpenAI SDK, and a wrong agent the matchers catch.
import OpenAI from 'openai';
import { script, understudy } from 'jest-understudy';
import { expect, it } from 'vitest';

const tools = [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object', properties: { id: { type: 'string' } } } } }];

async function supportAgent(question, { runTools = true } = {}) {
  const client = new OpenAI();
  const messages = [{ role: 'user', content: question }];
  for (let i = 0; i < 5; i++) {
    const message = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })).choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    if (!runTools) return 'I looked it up.';
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ id: 'A-1', paid: 30 }) });
  }
  throw new Error('no answer');
}

const lookup = () => script().user('Where is A-1?').callsTool('lookup_order', { id: 'A-1' }).replies('A-1 is paid.');

it('replays a tool loop and checks its trajectory', async () => {
  understudy.model.use(lookup());
  const run = await understudy.run(() => supportAgent('Where is A-1?'));
  expect(run).toHaveCalledTool('lookup_order', { id: 'A-1' });
  expect(run).toHaveFinalMessage('paid');
});

it('catches an agent that never runs the tool', async () => {
  understudy.model.use(lookup());
  const run = await understudy.run(() => supportAgent('Where is A-1?', { runTools: false }));
  expect(() => expect(run).toHaveCalledTool('lookup_order')).toThrow('Expected: a call to "lookup_order"');
});
