// A model cannot call a tool it was not given: a fixture (inline, script(), a file) whose reply
// calls a tool the request does not offer fails the test with the offered tools and a
// did-you-mean, on every protocol, in process and over the served port. Each case's agent does
// what a real one does with such a call (throws, or stops with the call unanswered: a run that
// ends on a tool call is 'failed'), and the test looks at the run, so the only failure a case can
// have is the contract's. The controls must pass.
const { join } = require('node:path');
const { writeFileSync } = require('node:fs');
const { expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const Anthropic = require('@anthropic-ai/sdk');
const { GoogleGenAI } = require('@google/genai');
const {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} = require('@aws-sdk/client-bedrock-runtime');
const { Agent, run: runAgent } = require('@openai/agents');
const { understudy, script, loadFixtures } = require('jest-understudy');

const NAMES = ['get_weather', 'get_time'];
const chatTools = NAMES.map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
}));

/** One Chat turn; the calls the model asked for. */
async function chatTurn(client, extra = {}) {
  const request = {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools: chatTools,
    ...extra,
  };
  if (request.stream) {
    const done = await client.chat.completions.stream(request).finalChatCompletion();
    return done.choices[0].message.tool_calls ?? [];
  }
  const done = await client.chat.completions.create(request);
  return done.choices[0].message.tool_calls ?? [];
}

const wrongCall = (name = 'get_wether') => [
  { match: { userMessage: 'Paris' }, response: { toolCalls: [{ name, arguments: { city: 'Paris' } }] } },
];

it('chat: an inline fixture calls get_wether', async () => {
  understudy.model.use(wrongCall());
  const run = await understudy.run(() => chatTurn(new OpenAI({ maxRetries: 0 })));
  expect(run.terminalState).toBe('failed');
});

it('chat streamed: a script() calls get_wether', async () => {
  understudy.model.use(script().user('Paris').callsTool('get_wether', { city: 'Paris' }).replies('Sunny.'));
  const run = await understudy.run(() => chatTurn(new OpenAI({ maxRetries: 0 }), { stream: true }));
  expect(run.terminalState).toBe('failed');
});

it('chat over the served port: a fixture file calls delete_everything', async () => {
  const file = join(__dirname, 'fidelity-unoffered.fixture.json');
  writeFileSync(
    file,
    JSON.stringify({
      fixtures: [
        {
          match: { userMessage: 'Paris' },
          response: { toolCalls: [{ name: 'delete_everything', arguments: {} }] },
        },
      ],
    }),
  );
  understudy.model.use(loadFixtures(file));
  const served = await understudy.serve();
  const client = new OpenAI({ maxRetries: 0, baseURL: served.urls.openai, apiKey: 'sk-served' });
  const run = await understudy.run(() => chatTurn(client));
  expect(run.terminalState).toBe('failed');
});

it('chat: tool_choice "none" and a fixture that calls get_weather', async () => {
  understudy.model.use(wrongCall('get_weather'));
  const run = await understudy.run(() => chatTurn(new OpenAI({ maxRetries: 0 }), { tool_choice: 'none' }));
  expect(run.terminalState).toBe('failed');
});

for (const stream of [false, true])
  it(`responses${stream ? ' streamed' : ''}: a fixture calls get_wether`, async () => {
    understudy.model.use(wrongCall());
    const run = await understudy.run(async () => {
      const body = {
        model: 'gpt-4o',
        input: 'Weather in Paris?',
        tools: NAMES.map((name) => ({
          type: 'function',
          name,
          parameters: { type: 'object', properties: {} },
          strict: false,
        })),
      };
      const client = new OpenAI({ maxRetries: 0 });
      const response = stream
        ? await client.responses.stream(body).finalResponse()
        : await client.responses.create(body);
      return response.output;
    });
    expect(run.terminalState).toBe('failed');
  });

it('responses: a fixture calls the hosted web_search as a function', async () => {
  understudy.model.use(wrongCall('web_search'));
  const run = await understudy.run(async () => {
    const response = await new OpenAI({ maxRetries: 0 }).responses.create({
      model: 'gpt-4o',
      input: 'Weather in Paris?',
      tools: [{ type: 'web_search' }],
    });
    return response.output;
  });
  expect(run.terminalState).toBe('failed');
});

const anthropicTools = NAMES.map((name) => ({ name, input_schema: { type: 'object', properties: {} } }));

for (const stream of [false, true])
  it(`anthropic${stream ? ' streamed' : ''}: a fixture calls get_wether`, async () => {
    understudy.model.use(wrongCall());
    const run = await understudy.run(async () => {
      const client = new Anthropic({ maxRetries: 0 });
      const params = {
        model: 'claude-sonnet-4-6',
        max_tokens: 512,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: anthropicTools,
      };
      const message = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      return message.content;
    });
    expect(run.terminalState).toBe('failed');
  });

it('anthropic: a fixture calls the web_search server tool as a function', async () => {
  understudy.model.use(wrongCall('web_search'));
  const run = await understudy.run(async () => {
    const message = await new Anthropic({ maxRetries: 0 }).messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [...anthropicTools, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
    });
    return message.content;
  });
  expect(run.terminalState).toBe('failed');
});

it('anthropic: a fixture says the model searched the web, and the request offers no search tool', async () => {
  understudy.model.use([
    { match: { userMessage: 'Paris' }, response: { webSearches: ['paris weather'], content: 'Sunny.' } },
  ]);
  const run = await understudy.run(async () => {
    const message = await new Anthropic({ maxRetries: 0 }).messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: anthropicTools,
    });
    return message.content;
  });
  expect(run.terminalState).toBe('succeeded');
});

const geminiTools = [
  { functionDeclarations: NAMES.map((name) => ({ name, parameters: { type: 'OBJECT', properties: {} } })) },
];

for (const stream of [false, true])
  it(`gemini${stream ? ' streamed' : ''}: a fixture calls get_wether`, async () => {
    understudy.model.use(wrongCall());
    const run = await understudy.run(async () => {
      const ai = new GoogleGenAI({ apiKey: 'gemini-key' });
      const request = {
        model: 'gemini-2.5-flash',
        contents: 'Weather in Paris?',
        config: { tools: geminiTools },
      };
      if (!stream) return (await ai.models.generateContent(request)).functionCalls;
      const calls = [];
      for await (const chunk of await ai.models.generateContentStream(request))
        calls.push(...(chunk.functionCalls ?? []));
      return calls;
    });
    expect(run.terminalState).toBe('failed');
  });

it('gemini: a fixture calls google_search, which the request offers only as the built-in googleSearch', async () => {
  understudy.model.use(wrongCall('google_search'));
  const run = await understudy.run(async () => {
    const response = await new GoogleGenAI({ apiKey: 'gemini-key' }).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config: { tools: [{ googleSearch: {} }] },
    });
    return response.functionCalls;
  });
  expect(run.terminalState).toBe('failed');
});

for (const stream of [false, true])
  it(`bedrock${stream ? ' streamed' : ''}: a fixture calls get_wether`, async () => {
    understudy.model.use(wrongCall());
    const run = await understudy.run(async () => {
      const client = new BedrockRuntimeClient({ region: 'us-east-1' });
      const input = {
        modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        messages: [{ role: 'user', content: [{ text: 'Weather in Paris?' }] }],
        toolConfig: {
          tools: NAMES.map((name) => ({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } })),
        },
      };
      if (!stream) return (await client.send(new ConverseCommand(input))).output.message.content;
      const out = await client.send(new ConverseStreamCommand(input));
      const names = [];
      for await (const event of out.stream)
        if (event.contentBlockStart?.start?.toolUse) names.push(event.contentBlockStart.start.toolUse.name);
      return names;
    });
    expect(run.terminalState).toBe('failed');
  });

/** A triage agent that hands off to the support agent (the Agents SDK names the tool transfer_to_Customer_Support_Agent). */
function triage() {
  const support = new Agent({ name: 'Customer Support Agent', instructions: 'Help the customer.' });
  return new Agent({ name: 'Triage', instructions: 'Route the customer.', handoffs: [support] });
}

it('agents sdk: a fixture hands off to transfer_to_customer_support_agent', async () => {
  understudy.model.use(
    script()
      .user('refund')
      .callsTool('transfer_to_customer_support_agent', {})
      .replies('The support agent will help.'),
  );
  const run = await understudy.run(() => runAgent(triage(), 'I want a refund'));
  // The SDK throws on a tool its agent does not have: the run errored, and the test looked.
  expect(run.terminalState).toBe('errored');
});

// ── Controls: the same agents, with names the requests offer, pass. ──

it('control: the agents sdk hands off with its own tool name', async () => {
  understudy.model.use(
    script()
      .user('refund')
      .callsTool('transfer_to_Customer_Support_Agent', {})
      .replies('The support agent will help.'),
  );
  const run = await understudy.run(async () => (await runAgent(triage(), 'I want a refund')).finalOutput);
  expect(run).toHaveTerminalState('succeeded');
  expect(run.output).toBe('The support agent will help.');
});

it('control: offered tools, a hosted web search the request offers, and an Anthropic bash tool', async () => {
  understudy.model.use([
    {
      match: { userMessage: 'Paris', toolName: 'get_weather' },
      response: { toolCalls: [{ name: 'get_weather', arguments: {} }] },
    },
    { match: { userMessage: 'search' }, response: { webSearches: ['paris weather'], content: 'Sunny.' } },
    {
      match: { userMessage: 'list' },
      response: { toolCalls: [{ name: 'bash', arguments: { command: 'ls' } }] },
    },
  ]);
  const calls = await chatTurn(new OpenAI({ maxRetries: 0 }));
  expect(calls.map((c) => c.function.name)).toEqual(['get_weather']);
  const searched = await new OpenAI({ maxRetries: 0 }).responses.create({
    model: 'gpt-4o',
    input: 'search the weather',
    tools: [{ type: 'web_search' }],
  });
  expect(searched.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
  const listed = await new Anthropic({ maxRetries: 0 }).messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 512,
    messages: [{ role: 'user', content: 'list the files' }],
    tools: [{ type: 'bash_20250124', name: 'bash' }],
  });
  expect(listed.content.map((b) => b.type === 'tool_use' && b.name)).toEqual(['bash']);
});
