// The Responses API's WebSocket mode from the installed package: a tool loop of several calls over
// one socket, through the two real clients that open it (the Agents SDK's websocket transport, on
// Node's global WebSocket; the openai SDK's ResponsesWS, on the `ws` package), in this process and
// over the served port. Tests named "must fail" hold a wrong agent or assertion; the driver checks
// each fails with jest-understudy's message.
const { expect, it } = require('./runner-globals.cjs');
const { Agent, tool, withResponsesWebSocketSession } = require('@openai/agents');
const OpenAI = require('openai');
const { ResponsesWS } = require('openai/resources/responses/ws');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { z } = require('zod');
const { understudy, script } = require('jest-understudy');

const QUESTION = 'What is the weather in Paris, and the time there?';
const ANSWER = 'It is 18°C in Paris, and 09:30.';
const loop = () =>
  script()
    .user(QUESTION)
    .callsTool('get_weather', { city: 'Paris' })
    .callsTool('get_time', { tz: 'Europe/Paris' })
    .replies(ANSWER);
const results = {
  get_weather: { city: 'Paris', tempC: 18 },
  get_time: { tz: 'Europe/Paris', time: '09:30' },
};

// ── The Agents SDK: OpenAIResponsesWSModel over Node's global WebSocket ───────────────────────
const agentsAgent = () =>
  new Agent({
    name: 'Weather',
    instructions: 'Answer with the tools.',
    model: 'gpt-4.1',
    tools: [
      tool({
        name: 'get_weather',
        description: 'Weather by city',
        parameters: z.object({ city: z.string() }),
        execute: async () => results.get_weather,
      }),
      tool({
        name: 'get_time',
        description: 'Local time in a time zone',
        parameters: z.object({ tz: z.string() }),
        execute: async () => results.get_time,
      }),
    ],
  });

const viaAgentsSdk = (baseURL) =>
  withResponsesWebSocketSession(async ({ run }) => (await run(agentsAgent(), QUESTION)).finalOutput, {
    providerOptions: { apiKey: 'sk-test', ...(baseURL ? { baseURL } : {}) },
  });

// ── The openai SDK's ResponsesWS on the `ws` package, driving the documented events ─────────────
const TOOLS = ['get_weather', 'get_time'].map((name) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {}, additionalProperties: true },
  strict: false,
}));

/** One response.create on the socket: resolves with the completed response, rejects on error or close. */
function create(socket, body) {
  return new Promise((resolve, reject) => {
    const off = () => {
      socket.off('response.completed', done);
      socket.off('response.failed', failed);
      socket.off('error', failed);
      socket.off('close', closed);
    };
    const done = (event) => {
      off();
      resolve(event.response);
    };
    const failed = (event) => {
      off();
      const why = event?.error ?? event?.response?.error ?? event;
      reject(new Error(`the turn failed: ${JSON.stringify(why)}`));
    };
    const closed = (code) => {
      off();
      reject(new Error(`the socket closed (${code})`));
    };
    socket.on('response.completed', done);
    socket.on('response.failed', failed);
    socket.on('error', failed);
    socket.on('close', closed);
    socket.send({ type: 'response.create', ...body });
  });
}

/**
 * The agent: each turn sends only the new items with previous_response_id. `ignoreResults` is the
 * bug of an agent that runs its tools and answers without sending their results back.
 */
async function viaResponsesWS(baseURL, { ignoreResults = false, swallow = false } = {}) {
  const client = new OpenAI({ apiKey: 'sk-test', ...(baseURL ? { baseURL } : {}), maxRetries: 0 });
  const socket = new ResponsesWS(client);
  try {
    let response = await create(socket, { model: 'gpt-4.1', tools: TOOLS, input: QUESTION });
    for (let step = 0; step < 4; step++) {
      const calls = response.output.filter((item) => item.type === 'function_call');
      if (calls.length === 0) return response.output_text ?? response.output[0]?.content?.[0]?.text;
      const outputs = calls.map((call) => ({
        type: 'function_call_output',
        call_id: call.call_id,
        output: JSON.stringify(results[call.name]),
      }));
      if (ignoreResults) return 'Done.';
      response = await create(socket, {
        model: 'gpt-4.1',
        tools: TOOLS,
        previous_response_id: response.id,
        input: outputs,
      });
    }
    throw new Error('the agent gave up');
  } catch (error) {
    if (swallow) return 'Sorry, something went wrong.';
    throw error;
  } finally {
    socket.close();
  }
}

const expectTheLoop = (run, url) => {
  expect(run.terminalState).toBe('succeeded');
  expect(run).toHaveCalledToolSequence(['get_weather', 'get_time']);
  expect(run).toHaveFinalMessage(ANSWER);
  expect(run.modelCalls.map((c) => [c.protocol, c.streamed, c.url])).toEqual([
    ['openai.responses', true, url],
    ['openai.responses', true, url],
    ['openai.responses', true, url],
  ]);
  expect(understudy.sockets.map((s) => [s.url, s.protocol])).toEqual([
    ['wss://api.openai.com/v1/responses', 'openai.responses.ws'],
  ]);
};

const CLIENTS = { 'the Agents SDK': viaAgentsSdk, "the openai SDK's ResponsesWS": viaResponsesWS };

for (const [name, agent] of Object.entries(CLIENTS)) {
  it(`${name}: a tool loop of three calls over one socket, in process`, async () => {
    understudy.model.use(loop());
    const run = await understudy.run(() => agent());
    expectTheLoop(run, 'https://api.openai.com/v1/responses');
  });

  it(`${name}: the same loop over the served port, credited to the run`, async () => {
    understudy.model.use(loop());
    const served = await understudy.serve();
    const run = await understudy.run(() => agent(served.urls.openai));
    expectTheLoop(run, 'https://api.openai.com/v1/responses');
  });

  it(`${name} must fail: the test expects get_time first, the model called get_weather`, async () => {
    understudy.model.use(loop());
    const run = await understudy.run(() => agent());
    expect(run).toHaveCalledToolSequence(['get_time', 'get_weather']);
  });
}

it('must fail: the agent ignores the tool results and answers on its own', async () => {
  understudy.model.use(loop());
  const run = await understudy.run(() => viaResponsesWS(undefined, { ignoreResults: true }));
  expect(run).toHaveCalledTool('get_weather', { city: 'Paris' });
});

it('must fail: a dropped socket the agent swallows', async () => {
  understudy.model.use([
    {
      match: { userMessage: QUESTION },
      response: { content: 'Cut off half way through the answer.', chunkSize: 4, disconnect: true },
    },
  ]);
  const run = await understudy.run(() => viaResponsesWS(undefined, { swallow: true }));
  expect(run.output).toBe('Sorry, something went wrong.');
  expect(run).toHaveTerminalState('succeeded');
});

it('a socket left open is closed when the file ends (1001), and the file does not hang', async () => {
  understudy.model.use(script().user('left open').replies('Still here.'));
  const socket = new ResponsesWS(new OpenAI({ apiKey: 'sk-test' }));
  const response = await create(socket, { model: 'gpt-4.1', input: 'left open' });
  expect(response.output_text ?? response.output[0].content[0].text).toBe('Still here.');
  // Written when the runtime closes it, after the file's last test: the driver reads the code.
  socket.on('close', (code) => writeFileSync(join(__dirname, 'left-open.close'), String(code)));
});
