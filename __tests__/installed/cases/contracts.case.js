// Request contracts from the installed package: an agent that drops one of two parallel
// tool results gets OpenAI's own 400, and the environment fails the test for it.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy } = require('jest-understudy');

const tools = ['get_weather', 'get_time'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
}));

async function dropOneResult(client) {
  const messages = [{ role: 'user', content: 'Weather and time in Paris?' }];
  const first = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
  const message = first.choices[0].message;
  messages.push(message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '18' });
  try {
    await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
  } catch (error) {
    return { error, dropped: message.tool_calls[1].id };
  }
  throw new Error('the request succeeded');
}

const fixtures = [
  {
    match: { userMessage: 'Paris', hasToolResult: false },
    response: {
      toolCalls: [
        { name: 'get_weather', arguments: {} },
        { name: 'get_time', arguments: {} },
      ],
    },
  },
  { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: 'Sunny at 9.' } },
];

it('an agent that drops one of two parallel tool results', async () => {
  understudy.model.use(fixtures);
  const { error, dropped } = await dropOneResult(new OpenAI({ maxRetries: 0 }));
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  expect(error.error).toEqual({
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${dropped}`,
    type: 'invalid_request_error',
    param: 'messages.[1].role',
    code: null,
  });
});

it('the same agent with the rule turned off for the test', async () => {
  understudy.model.use(fixtures);
  understudy.model.contracts({ 'tool-results': false });
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Weather and time in Paris?' }];
  const first = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
  const message = first.choices[0].message;
  messages.push(message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '18' });
  const second = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
  expect(second.choices[0].message.content).toBe('Sunny at 9.');
});
