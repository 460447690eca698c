// Stream dialects from the installed package, turned on for the file: the
// official client reads every Chat dialect; a hand-written parser that indexes choices[0]
// meets Azure's empty-choices preamble and the test fails.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, dialectsFor } = require('jest-understudy');

understudy.model.dialect('all');

const fixtures = [
  {
    match: { userMessage: 'Paris', hasToolResult: false },
    response: {
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: {} },
      ],
    },
  },
  { match: { userMessage: 'Paris', hasToolResult: true }, response: { content: 'Sunny at 9.' } },
];
const tools = ['get_weather', 'get_time'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object' } },
}));

async function officialAgent() {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: 'user', content: 'Weather and time in Paris?' }];
  for (;;) {
    const completion = await client.chat.completions
      .stream({ model: 'gpt-4o', messages, tools })
      .finalChatCompletion();
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) return message.content;
    for (const call of message.tool_calls)
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
  }
}

it('the official client reads every Chat dialect', async () => {
  understudy.model.use(fixtures);
  for (const _ of dialectsFor('openai.chat')) {
    const run = await understudy.run(officialAgent);
    expect(run).toHaveTerminalState('succeeded');
    expect(run).toHaveFinalMessage('Sunny at 9.');
  }
  const seen = new Set(
    understudy.model.calls.filter((c) => c.response.toolCalls.length > 0).map((c) => c.dialect),
  );
  expect([...seen].sort()).toEqual([...dialectsFor('openai.chat')].sort());
});

it('a hand-written stream parser that indexes choices[0]', async () => {
  understudy.model.use(fixtures);
  understudy.model.dialect(['empty-choices']);
  const run = await understudy.run(async () => {
    const response = await fetch('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      }),
    });
    let text = '';
    for (const line of (await response.text()).split('\n'))
      if (line.startsWith('data: {')) text += JSON.parse(line.slice(6)).choices[0].delta.content || '';
    return text;
  });
  expect(run.output).toBe('');
});
