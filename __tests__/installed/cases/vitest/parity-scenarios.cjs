// Test bodies written once and run by one case file (parity.case.js) under Jest CommonJS, Jest
// ESM and Vitest: each takes the runner's `expect`. Agents on the official OpenAI and Anthropic
// SDKs run whole tool loops; a wrong agent (one that drops the tool calls, swallows a refused
// request, leaves a crash unread) must fail with the same message under each.
const Anthropic = require('@anthropic-ai/sdk');
const OpenAI = require('openai');
const { script, understudy } = require('jest-understudy');

const weather = (args) => JSON.stringify({ city: args.city, tempC: 18 });
const schema = { type: 'object', properties: { city: { type: 'string' } } };

async function openaiAgent(text, { drop = false, stream = false } = {}) {
  const client = new OpenAI({ maxRetries: 0 });
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: schema } }];
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 4; turn++) {
    const params = { model: 'gpt-4o-mini', messages, tools };
    const completion = stream
      ? await client.chat.completions.stream(params).finalChatCompletion()
      : await client.chat.completions.create(params);
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    if (drop) return 'I checked.';
    for (const call of message.tool_calls)
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: weather(JSON.parse(call.function.arguments)),
      });
  }
  return undefined;
}

async function anthropicAgent(text, { stream = false } = {}) {
  const client = new Anthropic({ maxRetries: 0 });
  const tools = [{ name: 'get_weather', input_schema: schema }];
  const messages = [{ role: 'user', content: text }];
  for (let turn = 0; turn < 4; turn++) {
    const params = { model: 'claude-sonnet-4-5', max_tokens: 512, messages, tools };
    const message = stream
      ? await client.messages.stream(params).finalMessage()
      : await client.messages.create(params);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return message.content.map((block) => block.text ?? '').join('');
    messages.push({
      role: 'user',
      content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: weather(use.input) })),
    });
  }
  return undefined;
}

const oslo = () =>
  script().user('weather in Oslo').callsTool('get_weather', { city: 'Oslo' }).replies('It is 18 °C in Oslo.');

const crash = async () => {
  throw new Error('the agent crashed on purpose');
};

/** Title → [body, whether it must pass]. */
module.exports = {
  'openai tool loop meets the trajectory matchers': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => openaiAgent('weather in Oslo'));
      expect(run).toHaveCalledTool('get_weather', { city: 'Oslo' });
      expect(run).toHaveCalledToolSequence([{ name: 'get_weather', args: { city: 'Oslo' } }]);
      expect(run).toHaveFinalMessage('18 °C');
      expect(run).toHaveStepCount(2);
      expect(run).not.toHaveCalledTool('delete_account');
    },
    true,
  ],
  'openai streamed tool loop meets the matchers': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => openaiAgent('weather in Oslo', { stream: true }));
      expect(run).toHaveCalledToolSequence([{ name: 'get_weather', args: { city: 'Oslo' } }]);
      expect(run).toHaveFinalMessage('18 °C');
    },
    true,
  ],
  'anthropic tool loop meets the matchers': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => anthropicAgent('weather in Oslo', { stream: true }));
      expect(run).toHaveCalledTool('get_weather', { city: 'Oslo' });
      expect(run).toHaveFinalMessage('18 °C');
    },
    true,
  ],
  'an agent that drops the tool calls fails toHaveCalledToolSequence': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => openaiAgent('weather in Oslo', { drop: true }));
      expect(run).toHaveCalledToolSequence([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    },
    false,
  ],
  'wrong arguments fail toHaveCalledTool': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => openaiAgent('weather in Oslo'));
      expect(run).toHaveCalledTool('get_weather', { city: 'Bergen' });
    },
    false,
  ],
  'a wrong final message fails toHaveFinalMessage': [
    async (expect) => {
      understudy.model.use(oslo());
      const run = await understudy.run(() => openaiAgent('weather in Oslo'));
      expect(run).toHaveFinalMessage('sunny');
    },
    false,
  ],
  'an unmatched request the agent swallowed fails the test': [
    async () => {
      understudy.model.use(oslo());
      await openaiAgent('weather in Paris').catch(() => 'swallowed');
    },
    false,
  ],
  'a blocked connection the agent swallowed fails the test': [
    async () => {
      await fetch('https://tools.example.com/v1/weather').catch(() => 'swallowed');
    },
    false,
  ],
  'a contract breach the agent swallowed fails the test': [
    async () => {
      understudy.model.use(script().user('hi').replies('hello'));
      const client = new OpenAI({ maxRetries: 0 });
      // A tool message that answers no tool call: OpenAI refuses it with a 400.
      await client.chat.completions
        .create({
          model: 'gpt-4o-mini',
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'tool', tool_call_id: 'call_1', content: '{}' },
          ],
        })
        .catch(() => 'swallowed');
    },
    false,
  ],
  'a run that threw and was never looked at fails the test': [
    async () => {
      await understudy.run(crash);
    },
    false,
  ],
  'a run that threw and was looked at passes': [
    async (expect) => {
      const run = await understudy.run(crash);
      expect(run.terminalState).toBe('errored');
    },
    true,
  ],
};
