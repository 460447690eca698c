// A file whose first trace is a run's own (the OTLP writer loads on first need): run.trace holds
// the run, its model call and the tool call the agent made, as OTLP/JSON spans.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

it("builds a run's spans the first time run.trace is read", async () => {
  understudy.model.use(
    script().user('weather?').callsTool('get_weather', { city: 'Paris' }).replies('Sunny.'),
  );
  const client = new OpenAI();
  const tools = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ];
  const run = await understudy.run(async () => {
    const messages = [{ role: 'user', content: 'weather?' }];
    const first = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    const call = first.choices[0].message.tool_calls[0];
    messages.push(first.choices[0].message, {
      role: 'tool',
      tool_call_id: call.id,
      content: '{"sky":"clear"}',
    });
    return (await client.chat.completions.create({ model: 'gpt-4o', messages, tools })).choices[0].message
      .content;
  });
  expect(run.output).toBe('Sunny.');
  const names = run.trace.map((span) => span.name);
  expect(names.filter((n) => n.startsWith('chat '))).toHaveLength(2);
  expect(names).toContain('execute_tool get_weather');
  expect(names.some((n) => n.startsWith('invoke_agent'))).toBe(true);
  for (const span of run.trace) {
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
  }
});
