// Ollama's native API through its own client (`ollama`), from the installed package: a tool loop
// over /api/chat, plain and NDJSON-streamed, /api/generate and /api/embed, errors in Ollama's
// shape. The tests named "must fail" hold an agent or an assertion that is wrong; the driver
// checks each fails, with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const { Ollama } = require('ollama');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { understudy, script, loadFixtures } = require('jest-understudy');

const MODEL = 'llama3.2';
const QUESTION = 'What is the weather in Paris?';
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather by city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Local time in a time zone',
      parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
    },
  },
];
const runTool = (name, args) =>
  name === 'get_weather' ? { city: args.city, tempC: 18 } : { tz: args.tz, time: '09:30' };

const weather = () =>
  script().user('Paris').callsTool('get_weather', { city: 'Paris' }).replies('It is 18°C in Paris.');

/** One model turn: the assistant message, read whole or reassembled from the stream. */
async function turn(client, messages, stream) {
  if (!stream) return (await client.chat({ model: MODEL, messages, tools })).message;
  const message = { role: 'assistant', content: '', tool_calls: [] };
  for await (const part of await client.chat({ model: MODEL, messages, tools, stream: true })) {
    message.content += part.message.content;
    message.tool_calls.push(...(part.message.tool_calls ?? []));
  }
  return message;
}

/** The agent loop; `ignoreResults`: the bug of an agent that runs its tools but never sends their results back. */
async function agent(client, { stream = false, ignoreResults = false } = {}) {
  const messages = [{ role: 'user', content: QUESTION }];
  for (let step = 0; step < 4; step++) {
    const message = await turn(client, messages, stream);
    if (!message.tool_calls?.length) return message.content;
    messages.push(message);
    for (const call of message.tool_calls) {
      const result = runTool(call.function.name, call.function.arguments);
      messages.push({ role: 'tool', tool_name: call.function.name, content: JSON.stringify(result) });
    }
    if (ignoreResults) return message.content;
  }
  throw new Error('the agent gave up');
}

for (const stream of [false, true]) {
  const how = stream ? 'streamed' : 'plain';

  it(`${how}: the tool loop calls get_weather and answers`, async () => {
    understudy.model.use(weather());
    const run = await understudy.run(() => agent(new Ollama({ host: 'http://127.0.0.1:11434' }), { stream }));
    expect(run.terminalState).toBe('succeeded');
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
    expect(run.toolCalls[0].result).toEqual({ city: 'Paris', tempC: 18 });
    expect(run).toHaveFinalMessage('It is 18°C in Paris.');
    expect(run.modelCalls.map((c) => [c.provider, c.protocol, c.streamed])).toEqual([
      ['ollama', 'ollama.chat', stream],
      ['ollama', 'ollama.chat', stream],
    ]);
  });

  it(`${how} must fail: the test expects get_time, the model called get_weather`, async () => {
    understudy.model.use(weather());
    const run = await understudy.run(() => agent(new Ollama(), { stream }));
    expect(run).toHaveCalledTool('get_time');
  });

  it(`${how} must fail: the test expects other arguments than the model's`, async () => {
    understudy.model.use(weather());
    const run = await understudy.run(() => agent(new Ollama(), { stream }));
    expect(run).toHaveCalledTool('get_weather', { city: 'Lyon' });
  });

  it(`${how} must fail: the agent ignores the tool result`, async () => {
    understudy.model.use(weather());
    const run = await understudy.run(() => agent(new Ollama(), { stream, ignoreResults: true }));
    expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  });
}

it('over the served port: the streamed tool loop, credited to the run', async () => {
  understudy.model.use(weather());
  const served = await understudy.serve();
  const run = await understudy.run(() => agent(new Ollama({ host: served.urls.ollama }), { stream: true }));
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
  expect(run).toHaveFinalMessage('It is 18°C in Paris.');
  expect(run.modelCalls.map((c) => c.url)).toEqual([
    'http://127.0.0.1:11434/api/chat',
    'http://127.0.0.1:11434/api/chat',
  ]);
});

it('must fail: a tool message that answers no call', async () => {
  understudy.model.use(script().user('Paris').replies('Sunny.'));
  const client = new Ollama();
  await client
    .chat({
      model: MODEL,
      messages: [
        { role: 'user', content: QUESTION },
        { role: 'tool', tool_name: 'get_weather', content: '{"tempC":18}' },
      ],
    })
    .catch(() => undefined);
});

it("must fail: a model the fixture file does not declare gets Ollama's 404", async () => {
  const file = join(__dirname, 'ollama-models.fixture.json');
  writeFileSync(
    file,
    JSON.stringify({
      models: ['llama3.2'],
      fixtures: [{ match: { userMessage: 'hello' }, response: { content: 'Hi there.' } }],
    }),
  );
  understudy.model.use(loadFixtures(file));
  const client = new Ollama();
  const ok = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hello' }] });
  expect(ok.message.content).toBe('Hi there.');
  const error = await client
    .chat({ model: 'llama3.3', messages: [{ role: 'user', content: 'hello' }] })
    .catch((e) => e);
  expect(error).toMatchObject({
    name: 'ResponseError',
    status_code: 404,
    error: 'model "llama3.3" not found, try pulling it first',
  });
});

it('must fail: a fixture whose reply does not fit the format schema', async () => {
  understudy.model.use(script().user('age').replies('{"age": "twenty-two"}'));
  const format = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };
  await new Ollama()
    .chat({ model: MODEL, messages: [{ role: 'user', content: 'age?' }], format })
    .catch(() => undefined);
});

it('must fail: a fixture that calls a tool on /api/generate, which offers none', async () => {
  understudy.model.use(
    script().user('weather').callsTool('get_weather', { city: 'Paris' }).replies('Sunny.'),
  );
  await new Ollama().generate({ model: MODEL, prompt: 'weather in Paris?' }).catch(() => undefined);
});

it('generate and embed answer from the same fixtures', async () => {
  understudy.model.use(script().user('sky').replies('Rayleigh scattering.'));
  const client = new Ollama();
  const plain = await client.generate({ model: MODEL, prompt: 'Why is the sky blue?' });
  expect(plain).toMatchObject({ response: 'Rayleigh scattering.', done: true, done_reason: 'stop' });
  let text = '';
  for await (const part of await client.generate({
    model: MODEL,
    prompt: 'Why is the sky blue?',
    stream: true,
  }))
    text += part.response;
  expect(text).toBe('Rayleigh scattering.');
  const { embeddings } = await client.embed({ model: 'nomic-embed-text', input: ['a', 'b'] });
  expect(embeddings).toHaveLength(2);
  expect(embeddings[0]).not.toEqual(embeddings[1]);
});

it("a fixture's error reaches the client as Ollama's ResponseError", async () => {
  understudy.model.use(script().user('Paris').fails({ status: 500, message: 'model runner crashed' }));
  const run = await understudy.run(() => agent(new Ollama()));
  expect(run.terminalState).toBe('errored');
  expect(run.error).toMatchObject({ name: 'ResponseError', error: 'model runner crashed', status_code: 500 });
});
