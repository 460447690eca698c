// Requests the real APIs refuse, from the installed package: each agent makes the mistake agents
// make, gets the provider's own 400 (checked here, body and all) and swallows it, as a fallback
// path would. The test must still fail, for the contract alone. The controls must pass.
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const Anthropic = require('@anthropic-ai/sdk');
const { GoogleGenAI } = require('@google/genai');
const { BedrockRuntimeClient, ConverseCommand } = require('@aws-sdk/client-bedrock-runtime');
const { understudy } = require('jest-understudy');

const openai = () => new OpenAI({ maxRetries: 0 });
const anthropic = () => new Anthropic({ maxRetries: 0 });
const ask = [{ role: 'user', content: 'Weather in Paris?' }];
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
};

/** What the agent got back: the error it swallowed. */
async function swallowed(call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the request succeeded');
}

const answer = [{ match: {}, response: { content: 'Sunny.' } }];

for (const stream of [false, true])
  it(`chat${stream ? ' streamed' : ''}: a tool result sent as an object (no JSON.stringify)`, async () => {
    understudy.model.use([
      {
        match: { hasToolResult: false },
        response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      },
      { match: { hasToolResult: true }, response: { content: 'Sunny.' } },
    ]);
    const client = openai();
    const first = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: ask,
      tools: [weatherTool],
    });
    const message = first.choices[0].message;
    const messages = [
      ...ask,
      message,
      { role: 'tool', tool_call_id: message.tool_calls[0].id, content: { tempC: 18 } },
    ];
    const error = await swallowed(() =>
      stream
        ? client.chat.completions
            .stream({ model: 'gpt-4o', messages, tools: [weatherTool] })
            .finalChatCompletion()
        : client.chat.completions.create({ model: 'gpt-4o', messages, tools: [weatherTool] }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toEqual({
      message:
        "Invalid type for 'messages[2].content': expected one of a string or array of objects, but got an object instead.",
      type: 'invalid_request_error',
      param: 'messages[2].content',
      code: 'invalid_type',
    });
  });

it('chat: max_tokens on a reasoning model', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().chat.completions.create({ model: 'o3-mini', messages: ask, max_tokens: 300 }),
  );
  expect(error.error).toEqual({
    message:
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    type: 'invalid_request_error',
    param: 'max_tokens',
    code: 'unsupported_parameter',
  });
});

it('chat: no messages', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() => openai().chat.completions.create({ model: 'gpt-4o', messages: [] }));
  expect(error.error).toEqual({
    message:
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'empty_array',
  });
});

it('chat over the served port: temperature 5', async () => {
  understudy.model.use(answer);
  const served = await understudy.serve();
  const client = new OpenAI({ maxRetries: 0, baseURL: served.urls.openai, apiKey: 'sk-served' });
  const error = await swallowed(() =>
    client.chat.completions.create({ model: 'gpt-4o', messages: ask, temperature: 5 }),
  );
  expect(error.error).toEqual({
    message: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 5 instead.",
    type: 'invalid_request_error',
    param: 'temperature',
    code: 'decimal_above_max_value',
  });
});

it('chat: temperature read from the environment as a string', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().chat.completions.create({ model: 'gpt-4o', messages: ask, temperature: '0.2' }),
  );
  expect(error.error.message).toBe(
    "Invalid type for 'temperature': expected a decimal, but got a string instead.",
  );
});

it('chat: an empty tool list (an agent with no tools registered)', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().chat.completions.create({ model: 'gpt-4o', messages: ask, tools: [] }),
  );
  expect(error.error).toEqual({
    message:
      "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    type: 'invalid_request_error',
    param: 'tools',
    code: 'empty_array',
  });
});

it('chat streamed: a tool choice kept on a side call with no tools', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai()
      .chat.completions.stream({ model: 'gpt-4o', messages: ask, tool_choice: 'auto' })
      .finalChatCompletion(),
  );
  expect(error.error).toEqual({
    message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    type: 'invalid_request_error',
    param: 'tool_choice',
    code: null,
  });
});

it('chat: stream options on a request that does not stream', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().chat.completions.create({
      model: 'gpt-4o',
      messages: ask,
      stream_options: { include_usage: true },
    }),
  );
  expect(error.error).toMatchObject({
    message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    param: 'stream_options',
  });
});

it('chat: JSON mode, and no message says json', async () => {
  understudy.model.use([{ match: {}, response: { content: '{"tempC":18}' } }]);
  const error = await swallowed(() =>
    openai().chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'Answer with the temperature.' }, ...ask],
      response_format: { type: 'json_object' },
    }),
  );
  expect(error.error).toEqual({
    message:
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
    type: 'invalid_request_error',
    param: 'messages',
    code: null,
  });
});

it('responses streamed: JSON mode said in the instructions only', async () => {
  understudy.model.use([{ match: {}, response: { content: '{"tempC":18}' } }]);
  const error = await swallowed(() =>
    openai()
      .responses.stream({
        model: 'gpt-4o',
        instructions: 'Answer in JSON.',
        input: 'Weather in Paris?',
        text: { format: { type: 'json_object' } },
      })
      .finalResponse(),
  );
  expect(error.error).toEqual({
    message:
      "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
    type: 'invalid_request_error',
    param: 'text.format',
    code: null,
  });
});

it('responses: tool_choice "required" with no tools', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tool_choice: 'required' }),
  );
  expect(error.error).toMatchObject({
    message: "Tool choice 'required' must be specified with 'tools' parameter.",
    param: 'tool_choice',
  });
});

it('responses: a function_call_output sent as an object', async () => {
  understudy.model.use([
    {
      match: { hasToolResult: false },
      response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    },
    { match: { hasToolResult: true }, response: { content: 'Sunny.' } },
  ]);
  const client = openai();
  const tools = [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false },
  ];
  const first = await client.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools });
  const call = first.output.find((o) => o.type === 'function_call');
  const error = await swallowed(() =>
    client.responses.create({
      model: 'gpt-4o',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: { tempC: 18 } }],
      tools,
    }),
  );
  expect(error.error).toMatchObject({ param: 'input[0].output', code: 'invalid_type' });
});

it('responses: temperature 0.2 on o3', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai().responses.create({ model: 'o3', input: 'Weather in Paris?', temperature: 0.2 }),
  );
  expect(error.error).toEqual({
    message: "Unsupported parameter: 'temperature' is not supported with this model.",
    type: 'invalid_request_error',
    param: 'temperature',
    code: null,
  });
});

it('responses streamed: code ported from Chat (max_tokens)', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    openai()
      .responses.stream({ model: 'gpt-4o', input: 'Weather in Paris?', max_tokens: 300 })
      .finalResponse(),
  );
  expect(error.error).toEqual({
    message: "Unknown parameter: 'max_tokens'.",
    type: 'invalid_request_error',
    param: 'max_tokens',
    code: 'unknown_parameter',
  });
});

it('responses: Chat messages instead of input', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() => openai().responses.create({ model: 'gpt-4o', messages: ask }));
  expect(error.error).toMatchObject({
    message: expect.stringMatching(
      /^Unsupported parameter: 'messages'. In the Responses API, this parameter has moved to 'input'./,
    ),
    code: 'unsupported_parameter',
  });
});

/** Anthropic's error body, as its SDK hands it over. */
const anthropicMessage = (error) => error.error.error.message;

it('anthropic: temperature 1.5', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    anthropic().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      messages: ask,
      temperature: 1.5,
    }),
  );
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  expect(error.error.error).toEqual({ type: 'invalid_request_error', message: 'temperature: range: 0..1' });
});

it('anthropic: no messages', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    anthropic().messages.create({ model: 'claude-sonnet-4-6', max_tokens: 256, messages: [] }),
  );
  expect(anthropicMessage(error)).toBe('messages: at least one message is required');
});

it('anthropic streamed: a thinking budget below 1024', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    anthropic()
      .messages.stream({
        model: 'claude-sonnet-4-6',
        max_tokens: 4096,
        messages: ask,
        thinking: { type: 'enabled', budget_tokens: 512 },
      })
      .finalMessage(),
  );
  expect(anthropicMessage(error)).toBe(
    'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
  );
});

it('anthropic: temperature 0.3 with thinking on', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    anthropic().messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      messages: ask,
      temperature: 0.3,
      thinking: { type: 'enabled', budget_tokens: 2048 },
    }),
  );
  expect(anthropicMessage(error)).toMatch(/^`temperature` may only be set to 1 when thinking is enabled\./);
});

it('anthropic: a tool_result sent as an object', async () => {
  understudy.model.use([
    {
      match: { hasToolResult: false },
      response: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    },
    { match: { hasToolResult: true }, response: { content: 'Sunny.' } },
  ]);
  const client = anthropic();
  const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }];
  const first = await client.messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    messages: ask,
    tools,
  });
  const use = first.content.find((b) => b.type === 'tool_use');
  const error = await swallowed(() =>
    client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      tools,
      messages: [
        ...ask,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: { tempC: 18 } }] },
      ],
    }),
  );
  expect(anthropicMessage(error)).toBe(
    'messages.2.content.0.tool_result.content: Input should be a valid list',
  );
});

it('gemini: temperature 5', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    new GoogleGenAI({ apiKey: 'gemini-key' }).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config: { temperature: 5 },
    }),
  );
  expect(error.status).toBe(400);
  expect(error.message).toContain(
    'Unable to submit request because it has a temperature value of 5 but the supported range is from 0 (inclusive) to 2.0001 (exclusive). Update the value and try again.',
  );
});

it('bedrock: temperature 1.5', async () => {
  understudy.model.use(answer);
  const error = await swallowed(() =>
    new BedrockRuntimeClient({ region: 'us-east-1' }).send(
      new ConverseCommand({
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        inferenceConfig: { temperature: 1.5 },
      }),
    ),
  );
  expect(error.name).toBe('ValidationException');
  expect(error.message).toBe(
    "1 validation error detected: Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
  );
});

it('embeddings: dimensions above the model size', async () => {
  const error = await swallowed(() =>
    openai().embeddings.create({ model: 'text-embedding-3-small', input: 'x', dimensions: 4096 }),
  );
  expect(error.error).toMatchObject({ param: 'dimensions', code: 'integer_above_max_value' });
});

it('embeddings: 2049 inputs in one request', async () => {
  const input = Array.from({ length: 2049 }, (_, i) => `doc ${i}`);
  const error = await swallowed(() => openai().embeddings.create({ model: 'text-embedding-3-small', input }));
  expect(error.error).toEqual({
    message:
      "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
    type: 'invalid_request_error',
    param: null,
    code: null,
  });
});

it('gemini embeddings: 101 requests in one batch', async () => {
  const contents = Array.from({ length: 101 }, (_, i) => `doc ${i}`);
  const error = await swallowed(() =>
    new GoogleGenAI({ apiKey: 'gemini-key' }).models.embedContent({
      model: 'gemini-embedding-001',
      contents,
    }),
  );
  expect(error.status).toBe(400);
  expect(error.message).toContain(
    'BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch',
  );
});

// ── Controls: what the APIs accept passes. ──

// Its 2048 embeddings of 3072 dimensions are some 100 MB of JSON: slow on a loaded machine.
it('control: requests the APIs accept', async () => {
  understudy.model.use(answer);
  await openai().chat.completions.create({
    model: 'gpt-4o',
    messages: ask,
    temperature: 2,
    top_p: 1,
    max_tokens: 50,
  });
  await openai().chat.completions.create({
    model: 'o3-mini',
    messages: ask,
    max_completion_tokens: 300,
    temperature: 1,
  });
  await openai().chat.completions.create({
    model: 'gpt-5-chat-latest',
    messages: ask,
    max_tokens: 300,
    temperature: 0.2,
  });
  await anthropic().messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 4096,
    messages: ask,
    temperature: 1,
  });
  await anthropic().messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 4096,
    messages: ask,
    thinking: { type: 'enabled', budget_tokens: 2048 },
  });
  await new GoogleGenAI({ apiKey: 'gemini-key' }).models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'Weather in Paris?',
    config: { temperature: 2, topP: 1, maxOutputTokens: 65536 },
  });
  const embedded = await openai().embeddings.create({
    model: 'text-embedding-3-large',
    input: Array.from({ length: 2048 }, (_, i) => `doc ${i}`),
    dimensions: 3072,
    encoding_format: 'float',
  });
  expect(embedded.data).toHaveLength(2048);
  // Each parameter beside what it needs.
  understudy.model.reset();
  understudy.model.use([{ match: {}, response: { content: '{"tempC":18}' } }]);
  await openai()
    .chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'system', content: 'Reply in json.' }, ...ask],
      tools: [weatherTool],
      tool_choice: 'none',
      parallel_tool_calls: false,
      stream_options: { include_usage: true },
      response_format: { type: 'json_object' },
    })
    .finalChatCompletion();
  await openai().responses.create({
    model: 'gpt-4o',
    input: 'Weather in Paris, as JSON?',
    text: { format: { type: 'json_object' } },
  });
}, 120_000);
