// Text after a tool call on the protocols whose wire cannot keep that order: Chat Completions
// (a message's `content` and `tool_calls` are separate fields) and Ollama's /api/chat. The same
// fixture file that answers the order-keeping protocols fails the test there, naming the
// protocol, the file and the JSON path, instead of sending the text reordered before the call.
const { expect, it } = require('./runner-globals.cjs');
const { dirname, join } = require('node:path');
const OpenAI = require('openai').default;
const { Ollama } = require('ollama');
const { understudy, loadFixtures } = require('jest-understudy');

const ASK = "what's the weather in NYC?";
const aimockRoot = dirname(dirname(require.resolve('@copilotkit/aimock')));
const EXAMPLE = join(aimockRoot, 'fixtures', 'examples', 'llm', 'blocks-tool-first.json');
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'plain';

  it(`${how} must fail: Chat Completions cannot send text after a call`, async () => {
    understudy.model.use(loadFixtures(EXAMPLE));
    const client = new OpenAI({ maxRetries: 0 });
    // The agent swallows the error: the test fails anyway.
    const error = await (async () => {
      const reply = await client.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: ASK }],
        tools,
        ...(stream && { stream: true }),
      });
      if (stream) for await (const _chunk of reply);
    })().catch((e) => e);
    expect(error.status).toBe(500);
  });

  it(`${how} must fail: Ollama's /api/chat cannot send text after a call`, async () => {
    understudy.model.use(loadFixtures(EXAMPLE));
    const error = await (async () => {
      const reply = await new Ollama().chat({
        model: 'llama3.2',
        messages: [{ role: 'user', content: ASK }],
        tools,
        stream,
      });
      if (stream) for await (const _part of reply);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(Error);
  });
}

it('the same file answers Responses in the same test file: the refusal is for the protocol only', async () => {
  understudy.model.use(loadFixtures(EXAMPLE));
  const response = await new OpenAI({ maxRetries: 0 }).responses.create({
    model: 'gpt-4.1',
    input: ASK,
    tools: [
      { type: 'function', name: 'get_weather', parameters: tools[0].function.parameters, strict: false },
    ],
  });
  expect(response.output.map((o) => o.type)).toEqual(['function_call', 'message']);
});

it('a reply whose text comes first still answers Chat Completions', async () => {
  understudy.model.use([
    {
      match: { userMessage: ASK },
      response: {
        blocks: [
          { type: 'text', text: 'Checking.' },
          { type: 'toolCall', name: 'get_weather', arguments: { city: 'NYC' } },
        ],
      },
    },
  ]);
  const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: ASK }],
    tools,
  });
  expect(completion.choices[0].message.content).toBe('Checking.');
  expect(completion.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
});
